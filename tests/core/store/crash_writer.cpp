// SPDX-License-Identifier: MIT
// Test helper: creates a run (or resumes one) and records candidates in a loop, printing
// "added <id>" after each addCandidate returned, until it is killed. Used by tst_runstore.
#include "store/runstore.h"

#include <QCoreApplication>
#include <QTextStream>

#include <cstdio>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 3) {
        std::fprintf(stderr, "usage: kwb_store_crash_writer create RUNS_DIR | resume RUN_DIR [LIMIT]\n");
        return 2;
    }
    QString error;
    std::unique_ptr<kwb::store::RunWriter> w;
    if (args[1] == QLatin1String("create")) {
        kwb::RunInfo info;
        info.taskName = QStringLiteral("1_Square");
        info.provider = QStringLiteral("replay");
        w = kwb::store::RunWriter::create(args[2], info, &error);
    } else {
        w = kwb::store::RunWriter::resume(args[2], &error);
    }
    if (!w) {
        std::fprintf(stderr, "error: %s\n", qPrintable(error));
        return 1;
    }
    std::printf("dir %s\n", qPrintable(w->directory()));
    std::fflush(stdout);
    const int limit = args.size() > 3 ? args[3].toInt() : 1000000;
    // A kernel of a realistic size, so a kill can land inside a write.
    QString code;
    for (int l = 0; l < 150; ++l)
        code += QStringLiteral("    y = x * %1 + torch.sin(x)  # line %1\n").arg(l);
    QString parent;
    for (int i = 0; i < limit; ++i) {
        kwb::Candidate c;
        c.id = w->nextCandidateId();
        c.parentId = parent;
        c.kind = i == 0 ? kwb::CandidateKind::Seed : kwb::CandidateKind::Repair;
        c.label = QStringLiteral("step%1").arg(i);
        if (!w->addCandidate(c, code)) {
            std::fprintf(stderr, "error: %s\n", qPrintable(w->lastError()));
            return 1;
        }
        std::printf("added %s\n", qPrintable(c.id));
        std::fflush(stdout);
        kwb::EvalResult r;
        r.status = kwb::EvalStatus::Ok;
        r.candidate.medianMs = 1.0 + i;
        r.candidate.samples = 5;
        c.status = kwb::CandidateStatus::Evaluated;
        c.eval = r;
        if (!w->updateCandidate(c)) {
            std::fprintf(stderr, "error: %s\n", qPrintable(w->lastError()));
            return 1;
        }
        std::printf("evaluated %s\n", qPrintable(c.id));
        std::fflush(stdout);
        parent = c.id;
    }
    return 0;
}

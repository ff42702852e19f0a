// SPDX-License-Identifier: MIT
// Benchmark (not a test): writes a 2,000-candidate run with ~200-line kernels, evaluations and one
// LLM exchange per candidate, then prints how long writing took and how long openRun takes
// (median of 5; from the snapshot and from the event log alone). GUI target: open < 0.5 s.
//   kwb_bench_store [CANDIDATES] [DIR]     (default 2000, a temporary directory)
#include "report/report.h"
#include "store/runstore.h"

#include <QCoreApplication>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <ctime>

using namespace kwb;

namespace {

QString kernel(int n)
{
    // ~200 lines, ~9 KB: the size of a real Triton GRU candidate.
    QString s = QStringLiteral("import torch\nimport triton\nimport triton.language as tl\n\n");
    for (int f = 0; f < 12; ++f) {
        s += QStringLiteral("@triton.jit\ndef kernel_%1_%2(x_ptr, w_ptr, out_ptr, n, BLOCK: tl.constexpr):\n").arg(n).arg(f);
        for (int l = 0; l < 14; ++l)
            s += QStringLiteral("    acc%1 = tl.load(x_ptr + tl.arange(0, BLOCK) * %2, mask=tl.arange(0, BLOCK) < n) * %3\n")
                     .arg(l)
                     .arg(f + 1)
                     .arg(l + n);
        s += u'\n';
    }
    return s;
}

EvalResult evaluation(int i)
{
    EvalResult r;
    r.status = i % 7 == 3 ? EvalStatus::WrongResult : EvalStatus::Ok;
    r.reason = QStringLiteral("matches the reference");
    r.logTail = QStringLiteral("compiling kernel_%1 ...\nrunning 20 trials\n").arg(i);
    r.device = QStringLiteral("cuda:0 NVIDIA H100 80GB HBM3");
    r.onGpu = true;
    r.torchVersion = QStringLiteral("2.11.0");
    r.trials = 5;
    r.maxAbsErr = 1e-6 * (i % 13);
    r.meanAbsErr = 1e-7;
    for (LatencyStats *s : {&r.candidate, &r.eager, &r.graph}) {
        s->medianMs = 0.5 + (i % 97) * 0.01;
        s->meanMs = s->medianMs * 1.01;
        s->stdMs = 0.01;
        s->minMs = s->medianMs * 0.98;
        s->maxMs = s->medianMs * 1.05;
        s->cv = 0.02;
        s->samples = 20;
    }
    r.eager.medianMs *= 3;
    r.graph.medianMs *= 1.2;
    r.runtimeChecks.append(Verdict{QStringLiteral("integrity.caching"), Outcome::No, Severity::Info,
                                   QStringLiteral("fresh output on every call"), {}, {}});
    r.profile.insert(QStringLiteral("sm_throughput_pct"), 61.5);
    r.wallSeconds = 3.2;
    return r;
}

double median(QList<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int count = argc > 1 ? std::atoi(argv[1]) : 2000;
    QTemporaryDir tmp(argc > 2 ? QString::fromLocal8Bit(argv[2]) + QStringLiteral("/kwb-bench-XXXXXX") : QString());
    RunInfo info;
    info.taskName = QStringLiteral("39_GRU");
    info.provider = QStringLiteral("bench");
    info.model = QStringLiteral("none");

    QElapsedTimer t;
    t.start();
    QString error;
    auto w = store::RunWriter::create(tmp.path(), info, &error);
    if (!w) {
        std::fprintf(stderr, "create: %s\n", qPrintable(error));
        return 1;
    }
    QList<qint64> perCandidateNs;
    for (int i = 0; i < count; ++i) {
        QElapsedTimer one;
        one.start();
        const QString code = kernel(i);
        LlmExchange x;
        x.id = w->nextExchangeId();
        x.callType = i < 2 ? QStringLiteral("seed%1").arg(i + 1) : QStringLiteral("seed1_repair%1").arg(i);
        x.messages = {{QStringLiteral("system"), QStringLiteral("You write Triton kernels.")},
                      {QStringLiteral("user"), QStringLiteral("Improve this kernel:\n") + code}};
        x.response = QStringLiteral("```python\n") + code + QStringLiteral("```\n");
        x.inputTokens = 3000;
        x.outputTokens = 2800;
        Candidate c;
        c.id = w->nextCandidateId();
        c.parentId = i ? QStringLiteral("c%1").arg((i - 1) / 2 + 1, 4, 10, QLatin1Char('0')) : QString();
        c.kind = i < 2 ? CandidateKind::Seed : CandidateKind::Repair;
        c.label = x.callType;
        c.exchangeIds = {x.id};
        x.candidateId = c.id;
        // The pipeline's order: the LLM call, the candidate, its evaluation.
        if (!w->addExchange(x) || !w->addCandidate(c, code)) {
            std::fprintf(stderr, "write: %s\n", qPrintable(w->lastError()));
            return 1;
        }
        c.status = CandidateStatus::Evaluated;
        c.eval = evaluation(i);
        c.verdicts = c.eval->runtimeChecks;
        if (!w->updateCandidate(c)) {
            std::fprintf(stderr, "write: %s\n", qPrintable(w->lastError()));
            return 1;
        }
        perCandidateNs.append(one.nsecsElapsed());
    }
    const QString dir = w->directory();
    w.reset(); // final snapshot
    const double writeS = t.nsecsElapsed() / 1e9;

    qint64 bytes = 0, events = 0, snapshot = 0;
    for (QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories); it.hasNext();) {
        it.next();
        bytes += it.fileInfo().size();
    }
    events = QFileInfo(dir + QStringLiteral("/events.jsonl")).size();
    snapshot = QFileInfo(dir + QStringLiteral("/run.json")).size();
    QList<double> per;
    for (qint64 ns : std::as_const(perCandidateNs))
        per.append(ns / 1e6);

    auto timeOpen = [&](const char *what, bool bodies) {
        QList<double> v, cpu;
        int n = 0;
        for (int k = 0; k < 5; ++k) {
            QElapsedTimer o;
            o.start();
            const std::clock_t c0 = std::clock();
            const auto run = store::openRun(dir, &error, nullptr, store::OpenOptions{.exchangeBodies = bodies});
            cpu.append(double(std::clock() - c0) * 1000.0 / CLOCKS_PER_SEC);
            v.append(o.nsecsElapsed() / 1e6);
            if (!run) {
                std::fprintf(stderr, "open: %s\n", qPrintable(error));
                return -1.0;
            }
            n = int(run->candidates.size());
        }
        std::printf("openRun (%s): median %.1f ms of 5 (min %.1f, max %.1f; CPU %.1f ms), %d candidates\n", what,
                    median(v), *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()), median(cpu), n);
        return median(v);
    };

    std::printf("run store benchmark: %d candidates, ~200-line kernels, evaluations, one LLM exchange each\n", count);
    std::printf("write: %.2f s total, %.2f ms per candidate (median; exchange, kernel, eval files + 3 events, fsync'd), p95 %.2f ms\n",
                writeS, median(per), [&] { auto s = per; std::sort(s.begin(), s.end()); return s[int(s.size() * 0.95)]; }());
    std::printf("size: %.1f MB on disk, events.jsonl %.1f MB, run.json %.1f MB\n", bytes / 1e6, events / 1e6, snapshot / 1e6);
    timeOpen("snapshot, headers only: the GUI's way", false);
    timeOpen("snapshot + all exchange bodies from llm/", true);
    QFile::rename(dir + QStringLiteral("/run.json"), dir + QStringLiteral("/run.json.off"));
    timeOpen("event log only, headers only: after a kill before any snapshot", false);
    QFile::rename(dir + QStringLiteral("/run.json.off"), dir + QStringLiteral("/run.json"));

    const auto run = store::openRun(dir, &error, nullptr, store::OpenOptions{.exchangeBodies = false});
    QElapsedTimer r;
    r.start();
    const QString tree = report::renderTextTree(*run);
    const double treeMs = r.nsecsElapsed() / 1e6;
    r.restart();
    const QString html = report::renderHtml(*run);
    std::printf("render: text tree %.1f ms (%lld lines), HTML %.1f ms (%.1f MB)\n", treeMs, (long long)tree.count(u'\n'),
                r.nsecsElapsed() / 1e6, html.toUtf8().size() / 1e6);
    return 0;
}

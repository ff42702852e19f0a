// SPDX-License-Identifier: MIT
// How long a run with 2,000 candidates takes to open in the workbench: the store's read, the tree
// model, and the whole MainWindow path (asynchronous load -> model -> first selection -> painted).
// Prints figures; not a test. Usage: kwb_bench_ui_open [CANDIDATES=2000] [REPEATS=5] [KEEP_RUNS_DIR]
// (with KEEP_RUNS_DIR the generated run stays there, to look at it in the application).
#include "candidatetreemodel.h"
#include "mainwindow.h"
#include "store/runstore.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSettings>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>

using namespace kwb;

namespace {
LatencyStats latency(double median)
{
    LatencyStats s;
    s.medianMs = s.meanMs = median;
    s.stdMs = median * 0.02;
    s.minMs = median * 0.97;
    s.maxMs = median * 1.05;
    s.cv = 0.02;
    s.samples = 100;
    return s;
}

QString writeRun(const QString &runsDir, int n)
{
    RunInfo info;
    info.taskName = QStringLiteral("39_GRU");
    info.provider = QStringLiteral("bench");
    info.model = QStringLiteral("synthetic");
    QString error;
    auto w = store::RunWriter::create(runsDir, info, &error);
    if (!w)
        qFatal("%s", qPrintable(error));
    QStringList ids;
    quint32 rng = 12345;
    auto next = [&rng] { return rng = rng * 1664525u + 1013904223u; };
    const QString code = QStringLiteral("import torch\n").repeated(1) + QStringLiteral("x = 1\n").repeated(150);
    for (int i = 0; i < n; ++i) {
        LlmExchange x;
        x.id = w->nextExchangeId();
        x.callType = QStringLiteral("call%1").arg(i);
        x.messages = {{QStringLiteral("user"), QStringLiteral("prompt ").repeated(200)}};
        x.response = QStringLiteral("answer ").repeated(300);
        x.inputTokens = 2000;
        x.outputTokens = 800;
        w->addExchange(x);
        Candidate c;
        c.id = w->nextCandidateId();
        // Every 50th is a new seed; the others grow the tree under a recent candidate.
        c.parentId = i % 50 == 0 || ids.isEmpty() ? QString() : ids[int(ids.size()) - 1 - int(next() % std::min<qsizetype>(ids.size(), 20))];
        c.kind = c.parentId.isEmpty() ? CandidateKind::Seed : CandidateKind(1 + int(next() % 8));
        c.exchangeIds = {x.id};
        c.status = CandidateStatus::Evaluated;
        EvalResult r;
        r.status = next() % 4 == 0 ? EvalStatus::CompileError : EvalStatus::Ok;
        r.candidate = latency(5 + next() % 5000 / 100.0);
        r.eager = latency(48.7);
        r.graph = latency(9.02);
        Verdict v;
        v.detector = QStringLiteral("grid_one_dim");
        v.outcome = Outcome::Yes;
        v.severity = Severity::Warning;
        v.evidence = {{3, 4, QStringLiteral("grid")}};
        c.verdicts = {v};
        c.eval = r;
        if (!w->addCandidate(c, code))
            qFatal("%s", qPrintable(w->lastError()));
        ids.append(c.id);
    }
    w->writeSnapshot();
    return w->directory();
}

double median(QList<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
} // namespace

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const int n = argc > 1 ? QString::fromLocal8Bit(argv[1]).toInt() : 2000;
    const int repeats = argc > 2 ? QString::fromLocal8Bit(argv[2]).toInt() : 5;
    // tmpfs when there is one: writing the fixture fsyncs every event, reading is what we measure.
    QTemporaryDir tmp(QDir("/dev/shm").exists() ? QStringLiteral("/dev/shm/kwb-bench-XXXXXX") : QString());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, tmp.filePath(QStringLiteral("config")));
    QCoreApplication::setOrganizationName(QStringLiteral("kwb-bench"));
    qputenv("KWB_RUNS_DIR", tmp.filePath(QStringLiteral("runs")).toUtf8());

    QElapsedTimer t;
    t.start();
    const QString keep = argc > 3 ? QString::fromLocal8Bit(argv[3]) : QString();
    // A kept run from an earlier call is reused: writing 2,000 fsync'd candidates takes a while.
    const QStringList kept = keep.isEmpty() ? QStringList() : store::listRuns(keep);
    const QString dir = !kept.isEmpty() ? kept.first() : writeRun(keep.isEmpty() ? tmp.filePath(QStringLiteral("runs")) : keep, n);
    std::printf("fixture: %d candidates written in %.1f s (%s)\n", n, t.elapsed() / 1000.0, qPrintable(dir));

    QList<double> storeMs, modelMs, windowMs;
    for (int i = 0; i < repeats; ++i) {
        t.restart();
        auto run = store::openRun(dir);
        storeMs.append(t.nsecsElapsed() / 1e6);
        if (!run)
            qFatal("openRun failed");
        CandidateTreeModel model;
        t.restart();
        model.setRun(*run);
        modelMs.append(t.nsecsElapsed() / 1e6);
    }
    for (int i = 0; i < repeats; ++i) {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1600, 1000);
        w.show();
        QCoreApplication::processEvents();
        QEventLoop loop;
        QObject::connect(&w, &MainWindow::runOpened, &loop, &QEventLoop::quit);
        t.restart();
        w.openRun(dir);
        loop.exec();
        const double loaded = t.nsecsElapsed() / 1e6;
        w.grab(); // the first paint of the full tree, code and views
        windowMs.append(t.nsecsElapsed() / 1e6);
        std::printf("  window: loaded after %.1f ms, painted after %.1f ms\n", loaded, windowMs.last());
    }
    std::printf("store::openRun       median %7.1f ms (of %d)\n", median(storeMs), repeats);
    std::printf("model setRun         median %7.1f ms\n", median(modelMs));
    std::printf("MainWindow open+paint median %7.1f ms  (target < 500 ms)\n", median(windowMs));
    return 0;
}

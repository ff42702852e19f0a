// SPDX-License-Identifier: MIT
// Figures for the evaluator (not a test):
//  1. its fixed overhead per candidate beyond compile and timed runs, with and without the pre-started
//     worker: wall time of evaluate() → evaluationFinished for a trivial candidate on the ReLU task,
//     minus the worker's compile phase (compiling → running) and run phase (running → result);
//  2. the spread (max/min) of five repeated speedup measurements of one candidate.
// Usage: kwb_bench_eval [N=5]   (KWB_PYTHON defaults to /usr/bin/python3 here)
#include "eval/evaluator.h"
#include "model/evalresult.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace kwb;

namespace {

struct Sample {
    double wall = 0, startup = 0, load = 0, compile = 0, run = 0;
    double overhead() const { return wall - compile - run; }
    EvalResult result;
};

Sample measure(Evaluator &ev, const EvalRequest &req)
{
    Sample s;
    QElapsedTimer t;
    QHash<QString, double> at; // first time each phase was seen, seconds since evaluate()
    QString id;
    QEventLoop loop;
    auto c1 = QObject::connect(&ev, &Evaluator::phaseChanged, &loop, [&](const QString &job, const QString &phase) {
        if (job == id && !at.contains(phase))
            at.insert(phase, t.nsecsElapsed() / 1e9);
    });
    auto c2 = QObject::connect(&ev, &Evaluator::evaluationFinished, &loop, [&](const QString &job, const EvalResult &r) {
        if (job != id)
            return;
        s.wall = t.nsecsElapsed() / 1e9;
        s.result = r;
        loop.quit();
    });
    t.start();
    id = ev.evaluate(req);
    loop.exec();
    QObject::disconnect(c1);
    QObject::disconnect(c2);
    const double loading = at.value(QStringLiteral("loading_task"), s.wall);
    const double compiling = at.value(QStringLiteral("compiling"), s.wall);
    const double running = at.value(QStringLiteral("running"), s.wall);
    s.startup = loading;
    s.load = compiling - loading;
    s.compile = running - compiling;
    s.run = s.wall - running; // correctness trials, fp64 check, interleaved timing, result
    return s;
}

/// Runs the event loop until `pred` holds (checked every 20 ms) or `ms` pass.
template<typename Pred>
void waitFor(Pred pred, int ms)
{
    QElapsedTimer t;
    t.start();
    QEventLoop loop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (pred() || t.elapsed() > ms)
            loop.quit();
    });
    poll.start(20);
    if (!pred())
        loop.exec();
}

double median(QList<double> v)
{
    std::sort(v.begin(), v.end());
    return v.isEmpty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

QString loadAverage()
{
    QFile f(QStringLiteral("/proc/loadavg"));
    return f.open(QIODevice::ReadOnly) ? QString::fromLatin1(f.readAll()).section(QLatin1Char(' '), 0, 2) : QStringLiteral("?");
}

void series(const char *title, Evaluator &ev, const EvalRequest &req, int n, bool waitWarm)
{
    std::printf("\n%s\n", title);
    std::printf("  %-4s %8s %8s %8s %8s %8s %10s\n", "#", "wall s", "start s", "load s", "comp s", "run s", "overhead s");
    QList<double> overheads;
    for (int i = 0; i < n; ++i) {
        if (waitWarm) // the time a person spends between candidates: the warm worker is ready
            waitFor([&] { return ev.warmWorkerReady(); }, 120000);
        const Sample s = measure(ev, req);
        if (s.result.status != EvalStatus::Ok) {
            std::printf("  %-4d failed: %s\n", i + 1, qPrintable(toName(s.result.status) + QStringLiteral(": ") + s.result.reason));
            continue;
        }
        overheads << s.overhead();
        std::printf("  %-4d %8.3f %8.3f %8.3f %8.3f %8.3f %10.3f\n", i + 1, s.wall, s.startup, s.load, s.compile, s.run,
                    s.overhead());
    }
    if (!overheads.isEmpty())
        std::printf("  median fixed overhead: %.3f s (min %.3f, max %.3f)\n", median(overheads),
                    *std::min_element(overheads.begin(), overheads.end()),
                    *std::max_element(overheads.begin(), overheads.end()));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (qEnvironmentVariableIsEmpty("KWB_PYTHON"))
        qputenv("KWB_PYTHON", "/usr/bin/python3");
    if (qEnvironmentVariableIsEmpty("KWB_DATA_DIR"))
        qputenv("KWB_DATA_DIR", KWB_SOURCE_DIR);
    const int n = argc > 1 ? std::max(1, atoi(argv[1])) : 5;

    EvalRequest req;
    // KWB_BENCH_TASK / KWB_BENCH_CANDIDATE measure the spread on a real kernel (e.g. on a GPU machine:
    // tasks/level3/39_GRU.py with build/resources/showcase/39_GRU.py, which the build generates);
    // KWB_BENCH_SKIP_OVERHEAD=1 skips part 1.
    req.taskFile = qEnvironmentVariable("KWB_BENCH_TASK", QStringLiteral(KWB_SOURCE_DIR "/tasks/level1/1_ReLU.py"));
    req.candidateFile = qEnvironmentVariable("KWB_BENCH_CANDIDATE", QStringLiteral(KWB_TEST_DATA "/eval/ok.py"));
    req.device = qEnvironmentVariable("KWB_BENCH_DEVICE", QStringLiteral("auto"));

    std::printf("kwb_bench_eval: task %s, candidate %s, %d runs per series, load average %s\n",
                qPrintable(QFileInfo(req.taskFile).fileName()), qPrintable(QFileInfo(req.candidateFile).fileName()), n,
                qPrintable(loadAverage()));
    std::printf("overhead = wall - compile phase - run phase (run = correctness trials + timed runs)\n");
    const bool overhead = qEnvironmentVariableIntValue("KWB_BENCH_SKIP_OVERHEAD") == 0;
    if (overhead) {
        Evaluator ev;
        ev.setPrestartEnabled(false);
        series("1a. without the pre-started worker (each evaluation starts python and imports torch)", ev, req, n, false);
    }
    if (overhead) {
        Evaluator ev;
        ev.prestart();
        series("1b. with the pre-started worker (warm worker ready before each request)", ev, req, n, true);
    }

    // 2. Spread of repeated speedup measurements (default repeat, warm workers).
    std::printf("\n2. speedup vs eager of the same candidate, %d measurements (repeat %d, warmup %d)\n", n, req.repeat, req.warmup);
    Evaluator ev;
    ev.prestart();
    QList<double> speedups, graphSpeedups;
    QString unit;
    for (int i = 0; i < n; ++i) {
        waitFor([&] { return ev.warmWorkerReady(); }, 120000);
        const EvalResult r = ev.evaluateBlocking(req);
        if (r.status != EvalStatus::Ok) {
            std::printf("  %d failed: %s\n", i + 1, qPrintable(r.reason));
            continue;
        }
        unit = r.onGpu ? QStringLiteral("GPU") : QStringLiteral("CPU");
        speedups << r.speedupVsEager();
        if (std::isfinite(r.speedupVsGraph()))
            graphSpeedups << r.speedupVsGraph();
        std::printf("  %d: %.4fx vs eager, %.4fx vs CUDA graph  (candidate median %.4f ms cv %.1f%%, eager median %.4f ms "
                    "cv %.1f%%)\n",
                    i + 1, r.speedupVsEager(), r.speedupVsGraph(), r.candidate.medianMs, r.candidate.cv * 100,
                    r.eager.medianMs, r.eager.cv * 100);
    }
    if (speedups.size() >= 2) {
        const double lo = *std::min_element(speedups.begin(), speedups.end());
        const double hi = *std::max_element(speedups.begin(), speedups.end());
        std::printf("  spread max/min: %.4f (%.1f%%) on %s\n", hi / lo, (hi / lo - 1) * 100, qPrintable(unit));
    }
    if (graphSpeedups.size() >= 2) {
        const double lo = *std::min_element(graphSpeedups.begin(), graphSpeedups.end());
        const double hi = *std::max_element(graphSpeedups.begin(), graphSpeedups.end());
        std::printf("  spread max/min vs CUDA graph: %.4f (%.1f%%)\n", hi / lo, (hi / lo - 1) * 100);
    }
    std::printf("\nload average at the end: %s\n", qPrintable(loadAverage()));
    return 0;
}

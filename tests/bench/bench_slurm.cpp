// SPDX-License-Identifier: MIT
// Figure for the Slurm backend (not a test): wall time per evaluation of one candidate, local
// Evaluator (pre-started worker) against SlurmEvaluator (sbatch → job runs `kwb eval` → result.json
// → poll), one evaluation at a time, and the difference: the cluster's overhead per evaluation.
// Needs a cluster: $SLURM_CONF set (tests/bench/bench_suite.sh starts the single-node test cluster).
// Usage: kwb_bench_slurm [N=5] [POLL_MS=250]   (KWB_PYTHON defaults to /usr/bin/python3 here)
#include "eval/evaluator.h"
#include "suite/slurmevaluator.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>

using namespace kwb;

namespace {
double once(EvalBackend &ev, const EvalRequest &req, EvalResult *out)
{
    QElapsedTimer t;
    t.start();
    QEventLoop loop;
    QString id;
    auto c = QObject::connect(&ev, &EvalBackend::evaluationFinished, &loop, [&](const QString &job, const EvalResult &r) {
        if (job == id) {
            *out = r;
            loop.quit();
        }
    });
    id = ev.evaluate(req);
    loop.exec();
    QObject::disconnect(c);
    return t.elapsed() / 1000.0;
}

double median(QList<double> v)
{
    std::sort(v.begin(), v.end());
    return v.isEmpty() ? 0 : v.at(v.size() / 2);
}
} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int n = argc > 1 ? std::max(1, atoi(argv[1])) : 5;
    const int pollMs = argc > 2 ? atoi(argv[2]) : 250;
    if (qEnvironmentVariable("SLURM_CONF").isEmpty()) {
        std::fprintf(stderr, "kwb_bench_slurm: set SLURM_CONF (tests/bench/bench_suite.sh --slurm starts a test cluster)\n");
        return 2;
    }
    if (qEnvironmentVariable("KWB_PYTHON").isEmpty())
        qputenv("KWB_PYTHON", "/usr/bin/python3");
    EvalRequest req;
    req.taskFile = QStringLiteral(KWB_SOURCE_DIR "/tasks/level1/1_ReLU.py");
    req.candidateFile = QStringLiteral(KWB_TEST_DATA "/candidates/relu_correct.py");
    req.device = QStringLiteral("cpu");
    req.trials = 2;
    req.warmup = 1;
    req.repeat = 10;

    QList<double> local, slurm;
    EvalResult r;
    {
        Evaluator ev;
        ev.prestart();
        once(ev, req, &r); // warm-up (worker start)
        for (int i = 0; i < n; ++i)
            local << once(ev, req, &r);
        std::printf("local: %s, median %.2f s per evaluation over %d\n", qPrintable(toName(r.status)), median(local), n);
    }
    QTemporaryDir tmp;
    suite::SlurmSettings s;
    s.gres.clear();
    s.pollMs = pollMs;
    s.kwbBinary = QCoreApplication::applicationDirPath() + QStringLiteral("/../../app/cli/kwb");
    suite::SlurmEvaluator ev(s, tmp.filePath(QStringLiteral("exchange")));
    for (int i = 0; i < n; ++i)
        slurm << once(ev, req, &r);
    std::printf("slurm: %s, median %.2f s per evaluation over %d (poll %d ms)\n", qPrintable(toName(r.status)), median(slurm), n,
                pollMs);
    std::printf("slurm overhead per evaluation: %.2f s (median slurm - median local)\n", median(slurm) - median(local));
    return 0;
}

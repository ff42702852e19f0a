// SPDX-License-Identifier: MIT
// Suite value types: suite.json round trip and bad input, totals, the failing-first order, the
// settings a resume reads back, and task collection from a KernelBench-shaped checkout.
#include "suite/suite.h"
#include "suite/suiterunner.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;
using namespace kwb::suite;

namespace {
SuiteEntry entry(const QString &name, EntryState st, bool correct, double e, double g, QStringList flags = {})
{
    SuiteEntry x;
    x.taskName = name;
    x.taskFile = QStringLiteral("/t/") + name + QStringLiteral(".py");
    x.state = st;
    x.correct = correct;
    x.speedupVsEager = e;
    x.speedupVsGraph = g;
    x.integrityFlags = flags;
    x.tokens = 100;
    x.costUsd = 0.5;
    return x;
}

void writeFile(const QString &path, const QByteArray &text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

const QByteArray kTask = "import torch\nimport torch.nn as nn\nclass Model(nn.Module):\n    def forward(self, x):\n"
                         "        return x\ndef get_inputs():\n    return [torch.randn(2)]\ndef get_init_inputs():\n    return []\n";
} // namespace

class TestSuiteUnits : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void jsonRoundTripAndAtomicFile()
    {
        QTemporaryDir tmp;
        Suite s;
        s.createdAt = QDateTime::fromString(QStringLiteral("2026-11-24T10:00:00.000Z"), Qt::ISODateWithMs);
        s.settings = QJsonObject{{"jobs", 4}};
        s.entries << entry(QStringLiteral("a"), EntryState::Finished, true, 2.0, 0.5, {QStringLiteral("integrity.caching")})
                  << entry(QStringLiteral("b"), EntryState::Failed, false, NAN, NAN);
        s.entries[1].failureReason = QStringLiteral("time limit");
        s.entries[1].runDir = QStringLiteral("runs/x");
        s.entries[1].attempts = 2;
        QString error;
        QVERIFY2(writeSuite(tmp.path(), s, &error), qPrintable(error));
        QVERIFY(isSuiteDirectory(tmp.path()));
        const auto back = readSuite(tmp.path(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->settings, s.settings);
        QCOMPARE(back->createdAt, s.createdAt);
        QCOMPARE(back->entries.size(), 2);
        QCOMPARE(back->entries[0], s.entries[0]);
        // NaN is written as null and read back as NaN (== is false for NaN: compare the rest).
        QVERIFY(std::isnan(back->entries[1].speedupVsEager));
        QCOMPARE(back->entries[1].failureReason, QStringLiteral("time limit"));
        QCOMPARE(back->entries[1].attempts, 2);
        QCOMPARE(back->entries[1].runDir, QStringLiteral("runs/x"));
    }

    void badFilesAreClearErrors()
    {
        QTemporaryDir tmp;
        QString error;
        QVERIFY(!readSuite(tmp.path(), &error));
        QVERIFY(error.contains(QLatin1String("no suite")));
        writeFile(suiteFile(tmp.path()), "{ not json");
        QVERIFY(!readSuite(tmp.path(), &error));
        QVERIFY(error.contains(QLatin1String("not valid JSON")));
        writeFile(suiteFile(tmp.path()), "{\"entries\": []}");
        QVERIFY(!readSuite(tmp.path(), &error));
        QVERIFY(error.contains(QLatin1String("kwb-suite")));
        writeFile(suiteFile(tmp.path()), "{\"kind\": \"kwb-suite\", \"schema_version\": 9}");
        QVERIFY(!readSuite(tmp.path(), &error));
        QVERIFY(error.contains(QLatin1String("newer")));
    }

    void totalsAndOrder()
    {
        Suite s;
        s.entries << entry(QStringLiteral("fast"), EntryState::Finished, true, 4.0, 2.0)
                  << entry(QStringLiteral("slow"), EntryState::Finished, true, 1.0, 0.5)
                  << entry(QStringLiteral("flagged"), EntryState::Finished, true, 1.0, 1.0, {QStringLiteral("integrity.x")})
                  << entry(QStringLiteral("wrong"), EntryState::Finished, false, NAN, NAN)
                  << entry(QStringLiteral("dead"), EntryState::Failed, false, NAN, NAN)
                  << entry(QStringLiteral("next"), EntryState::Running, false, NAN, NAN);
        const auto t = totals(s);
        QCOMPARE(t.tasks, 6);
        QCOMPARE(t.done, 5);
        QCOMPARE(t.failed, 1);
        QCOMPARE(t.running, 1);
        QCOMPARE(t.correct, 3);
        QCOMPARE(t.fasterThanEager, 1);
        QCOMPARE(t.fasterThanGraph, 1);
        QCOMPARE(t.flagged, 1);
        QVERIFY(qAbs(t.geomeanVsEager - std::cbrt(4.0)) < 1e-12);
        QVERIFY(qAbs(t.geomeanVsGraph - 1.0) < 1e-12);
        QCOMPARE(t.tokens, 600);
        QVERIFY(qAbs(t.costUsd - 3.0) < 1e-12);
        QStringList order;
        for (const auto &e : sortedFailingFirst(s.entries))
            order << e.taskName;
        QCOMPARE(order, (QStringList{QStringLiteral("dead"), QStringLiteral("wrong"), QStringLiteral("flagged"),
                                     QStringLiteral("fast"), QStringLiteral("next"), QStringLiteral("slow")}));
    }

    void settingsRoundTrip()
    {
        SuiteConfig c;
        c.pipeline.seeds = 3;
        c.pipeline.maxRepairs = 1;
        c.pipeline.stages = false;
        c.pipeline.eval.device = QStringLiteral("cuda");
        c.pipeline.eval.trials = 2;
        c.pipeline.gatePolicy = pipeline::GatePolicy::Failures;
        c.provider.provider = QStringLiteral("fake");
        c.provider.model = QStringLiteral("m");
        c.jobs = 4;
        c.gpus = {QStringLiteral("0"), QStringLiteral("1")};
        c.backend = QStringLiteral("slurm");
        c.slurm.partition = QStringLiteral("gpu");
        c.slurm.extraArgs = {QStringLiteral("--qos=high")};
        c.taskTimeoutSec = 60;
        const SuiteConfig b = SuiteConfig::fromJson(c.toJson());
        QCOMPARE(b.pipeline.seeds, 3);
        QCOMPARE(b.pipeline.maxRepairs, 1);
        QCOMPARE(b.pipeline.stages, false);
        QCOMPARE(b.pipeline.eval.device, QStringLiteral("cuda"));
        QCOMPARE(b.pipeline.eval.trials, 2);
        QCOMPARE(b.pipeline.gatePolicy, pipeline::GatePolicy::Failures);
        QCOMPARE(b.provider.provider, QStringLiteral("fake"));
        QCOMPARE(b.provider.model, QStringLiteral("m"));
        QCOMPARE(b.jobs, 4);
        QCOMPARE(b.gpus, c.gpus);
        QCOMPARE(b.backend, QStringLiteral("slurm"));
        QCOMPARE(b.slurm.partition, QStringLiteral("gpu"));
        QCOMPARE(b.slurm.extraArgs, c.slurm.extraArgs);
        QCOMPARE(b.taskTimeoutSec, 60);
    }

    void collectsAKernelBenchCheckout()
    {
        QTemporaryDir tmp;
        QDir d(tmp.path());
        QVERIFY(d.mkpath(QStringLiteral("KernelBench/level1")));
        QVERIFY(d.mkpath(QStringLiteral("KernelBench/level2/sub")));
        writeFile(d.filePath(QStringLiteral("KernelBench/level1/1_A.py")), kTask);
        writeFile(d.filePath(QStringLiteral("KernelBench/level1/2_B.py")), kTask);
        writeFile(d.filePath(QStringLiteral("KernelBench/level2/sub/3_C.py")), kTask);
        writeFile(d.filePath(QStringLiteral("KernelBench/level2/helper.py")), "x = 1\n");
        QString error;
        QStringList skipped;
        const QStringList tasks = collectTasks({d.filePath(QStringLiteral("KernelBench")),
                                                d.filePath(QStringLiteral("KernelBench/level1/1_A.py"))},
                                               &error, &skipped);
        QCOMPARE(tasks.size(), 3); // the file named twice counts once
        QVERIFY(tasks.contains(d.filePath(QStringLiteral("KernelBench/level2/sub/3_C.py"))));
        QCOMPARE(skipped.size(), 1);
        QVERIFY(skipped.first().contains(QLatin1String("helper.py")));

        QVERIFY(collectTasks({d.filePath(QStringLiteral("nothing-here"))}, &error).isEmpty());
        QVERIFY(error.contains(QLatin1String("nothing-here")));
        QVERIFY(d.mkpath(QStringLiteral("empty")));
        QVERIFY(collectTasks({d.filePath(QStringLiteral("empty"))}, &error).isEmpty());
        QVERIFY(error.contains(QLatin1String("no task files")));
    }
};

QTEST_GUILESS_MAIN(TestSuiteUnits)
#include "tst_suite_units.moc"

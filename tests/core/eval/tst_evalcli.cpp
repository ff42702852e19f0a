// SPDX-License-Identifier: MIT
// `kwb tasks`, `kwb baseline`, `kwb eval`: exit codes and output of the built binary.
#include "eval/evalrequest.h"
#include "evaltestutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

using namespace kwbtest;

class TestEvalCli : public QObject
{
    Q_OBJECT
    QTemporaryDir m_cache;

    struct Run {
        int code = -1;
        QString out, err;
    };

    Run kwb(const QStringList &args)
    {
        QProcess p;
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        e.insert(QStringLiteral("XDG_CACHE_HOME"), m_cache.path());
        e.insert(QStringLiteral("KWB_DATA_DIR"), QStringLiteral(KWB_SOURCE_DIR));
        p.setProcessEnvironment(e);
        p.start(QStringLiteral(KWB_CLI), args);
        Run r;
        if (!p.waitForFinished(120000)) {
            p.kill();
            p.waitForFinished();
            return r;
        }
        r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.out = QString::fromUtf8(p.readAllStandardOutput());
        r.err = QString::fromUtf8(p.readAllStandardError());
        return r;
    }

    QStringList small() const
    {
        return {QStringLiteral("--device"), QStringLiteral("cpu"), QStringLiteral("--trials"), QStringLiteral("2"),
                QStringLiteral("--warmup"), QStringLiteral("1"), QStringLiteral("--repeat"), QStringLiteral("3")};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        if (qEnvironmentVariableIsEmpty("KWB_PYTHON"))
            qputenv("KWB_PYTHON", "/usr/bin/python3");
    }

    void tasks()
    {
        Run r = kwb({QStringLiteral("tasks")});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(QStringLiteral("39_GRU")) && r.out.contains(QStringLiteral("gru")), qPrintable(r.out));
        r = kwb({QStringLiteral("tasks"), QStringLiteral(KWB_TEST_DATA "/eval"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        bool tiny = false;
        for (const auto &v : o.value(QStringLiteral("tasks")).toArray())
            tiny = tiny || v.toObject().value(QStringLiteral("name")).toString() == QStringLiteral("tiny_relu");
        QVERIFY2(tiny, qPrintable(r.out));
        // The candidates and not_a_task.py in that folder are problems, not tasks.
        QVERIFY(!o.value(QStringLiteral("problems")).toArray().isEmpty());
        QCOMPARE(kwb({QStringLiteral("tasks"), QStringLiteral("/nonexistent-dir")}).code, 3);
        QCOMPARE(kwb({QStringLiteral("tasks"), QStringLiteral("--bogus")}).code, 2);
    }

    void usageAndInputErrors()
    {
        const QString ok = data(QStringLiteral("ok.py"));
        const QString task = data(QStringLiteral("tiny_relu.py"));
        Run r = kwb({QStringLiteral("eval")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains(QStringLiteral("TASK and CANDIDATE")));
        r = kwb({QStringLiteral("eval"), QStringLiteral("--bogus"), task, ok});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("bogus")), qPrintable(r.err));
        QCOMPARE(kwb({QStringLiteral("eval"), task, ok, QStringLiteral("--trials"), QStringLiteral("abc")}).code, 2);
        QCOMPARE(kwb({QStringLiteral("eval"), task, ok, QStringLiteral("--device"), QStringLiteral("tpu")}).code, 2);
        r = kwb({QStringLiteral("eval"), task, QStringLiteral("/nonexistent/cand.py")});
        QCOMPARE(r.code, 3);
        QVERIFY(r.err.contains(QStringLiteral("no such candidate file")));
        r = kwb({QStringLiteral("eval"), QStringLiteral("no_such_task"), ok});
        QCOMPARE(r.code, 3);
        r = kwb({QStringLiteral("eval"), data(QStringLiteral("not_a_task.py")), ok});
        QCOMPARE(r.code, 3);
        QVERIFY2(r.err.contains(QStringLiteral("get_init_inputs")), qPrintable(r.err));
        QCOMPARE(kwb({QStringLiteral("baseline")}).code, 2);
        QCOMPARE(kwb({QStringLiteral("baseline"), QStringLiteral("no_such_task")}).code, 3);
        QCOMPARE(kwb({QStringLiteral("eval"), QStringLiteral("--help")}).code, 0);
    }

    void evalOutcomes()
    {
        if (!workerPresent())
            QSKIP("the worker is not there yet");
        const QString task = data(QStringLiteral("tiny_relu.py"));
        Run r = kwb(QStringList{QStringLiteral("eval"), task, data(QStringLiteral("ok.py"))} + small());
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.startsWith(QStringLiteral("OK")), qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("speedup vs eager")));
        QVERIFY(r.out.contains(QStringLiteral("median")));

        r = kwb(QStringList{QStringLiteral("eval"), task, data(QStringLiteral("wrong.py")), QStringLiteral("--json")} + small());
        QCOMPARE(r.code, 1);
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("status")).toString(), QStringLiteral("wrong_result"));

        r = kwb(QStringList{QStringLiteral("eval"), task, data(QStringLiteral("segfault.py"))} + small());
        QCOMPARE(r.code, 1);
        QVERIFY2(r.out.startsWith(QStringLiteral("CRASH")) && r.out.contains(QStringLiteral("log tail")), qPrintable(r.out));

        r = kwb(QStringList{QStringLiteral("eval"), task, data(QStringLiteral("ok.py")), QStringLiteral("--python"),
                            QStringLiteral("/nonexistent/python3")} + small());
        QCOMPARE(r.code, 4);
    }

    void judgesOwnRounds()
    {
        if (!workerPresent())
            QSKIP("the worker is not there yet");
        // Without --repeat the worker gets none and the judge counts its own rounds (on a CPU by the task's speed),
        // which the host accepts; with --repeat it runs those.
        const QString task = data(QStringLiteral("tiny_relu.py"));
        const QStringList base{QStringLiteral("eval"), task, data(QStringLiteral("ok.py")), QStringLiteral("--device"),
                               QStringLiteral("cpu"), QStringLiteral("--trials"), QStringLiteral("2"),
                               QStringLiteral("--warmup"), QStringLiteral("1"), QStringLiteral("--json")};
        Run r = kwb(base);
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(o.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QVERIFY2(o.value(QStringLiteral("reason")).toString().contains(QStringLiteral("the judge's count")), qPrintable(r.out));
        const int n = o.value(QStringLiteral("candidate")).toObject().value(QStringLiteral("samples")).toInt();
        QVERIFY2(n >= kwb::AutoRoundsMin / 3 && n <= kwb::AutoRoundsMax, qPrintable(r.out));
        r = kwb(base + QStringList{QStringLiteral("--repeat"), QStringLiteral("3")});
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QVERIFY2(!o.value(QStringLiteral("reason")).toString().contains(QStringLiteral("the judge's count")), qPrintable(r.out));
        QVERIFY(o.value(QStringLiteral("candidate")).toObject().value(QStringLiteral("samples")).toInt() <= 3);
    }

    void baselineCached()
    {
        if (!workerPresent())
            QSKIP("the worker is not there yet");
        const QStringList args{QStringLiteral("baseline"), data(QStringLiteral("tiny_relu.py")), QStringLiteral("--device"),
                               QStringLiteral("cpu"), QStringLiteral("--warmup"), QStringLiteral("1"),
                               QStringLiteral("--repeat"), QStringLiteral("3"), QStringLiteral("--json")};
        Run r = kwb(args);
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("cached")).toBool(), false);
        r = kwb(args);
        QCOMPARE(r.code, 0);
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("cached")).toBool(), true);
        r = kwb(args + QStringList{QStringLiteral("--no-cache")});
        QCOMPARE(r.code, 0);
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("cached")).toBool(), false);
    }
};

QTEST_GUILESS_MAIN(TestEvalCli)
#include "tst_evalcli.moc"

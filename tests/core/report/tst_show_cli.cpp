// SPDX-License-Identifier: MIT
// `kwb show` as a script sees it: output and exit codes of the real executable.
#include "store/runstore.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

const QString kFixture = QStringLiteral(KWB_TEST_DATA "/report/run");

struct Result {
    int code = -1;
    QString out;
    QString err;
};

Result kwbShow(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral(KWB_CLI), QStringList{"show"} + args);
    if (!p.waitForFinished(30000))
        return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

} // namespace

class TestShowCli : public QObject {
    Q_OBJECT
private slots:
    void tree();
    void json();
    void markdownAndHtml();
    void errors();
    void liveRunWithTornLine();
};

void TestShowCli::tree()
{
    const Result r = kwbShow({kFixture});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("run 20261122-142000_39_GRU_replay"), qPrintable(r.out));
    QVERIFY(r.out.contains("      c0006    stage_grid"));
}

void TestShowCli::json()
{
    const Result r = kwbShow({kFixture, "--json"});
    QCOMPARE(r.code, 0);
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o.value("schema_version").toInt(), 1);
    QCOMPARE(o.value("candidates").toArray().size(), 8);
    QCOMPARE(o.value("info").toObject().value("best_candidate_id").toString(), QStringLiteral("c0006"));
}

void TestShowCli::markdownAndHtml()
{
    const Result md = kwbShow({kFixture, "--markdown"});
    QCOMPARE(md.code, 0);
    QVERIFY(md.out.startsWith("# Kernel Workbench run 20261122-142000_39_GRU_replay"));
    QTemporaryDir tmp;
    const QString file = tmp.filePath("report.html");
    const Result html = kwbShow({kFixture, "--html", file});
    QCOMPARE(html.code, 0);
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    QVERIFY(bytes.startsWith("<!DOCTYPE html>"));
    QVERIFY(bytes.contains("<svg"));
}

void TestShowCli::errors()
{
    QTemporaryDir tmp;
    Result r = kwbShow({tmp.path()});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("not a Kernel Workbench run: no events.jsonl or run.json in"), qPrintable(r.err));
    QFile damaged(tmp.filePath("run.json"));
    QVERIFY(damaged.open(QIODevice::WriteOnly));
    damaged.write("{\n\"schema_version\": 1,\n\"info\": [\n");
    damaged.close();
    r = kwbShow({tmp.path()});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("damaged JSON") && r.err.contains("run.json line 4"), qPrintable(r.err));
    QCOMPARE(kwbShow({}).code, 2);
    QCOMPARE(kwbShow({kFixture, "--json", "--markdown"}).code, 2);
    QCOMPARE(kwbShow({kFixture, "--html"}).code, 2);
    QCOMPARE(kwbShow({kFixture, "--bogus"}).code, 2);
}

void TestShowCli::liveRunWithTornLine()
{
    QTemporaryDir tmp;
    QString dir;
    {
        kwb::RunInfo info;
        info.taskName = "1_Square";
        info.provider = "replay";
        auto w = kwb::store::RunWriter::create(tmp.path(), info);
        kwb::Candidate c;
        c.id = w->nextCandidateId();
        QVERIFY(w->addCandidate(c, "x"));
        dir = w->directory();
    }
    QFile f(dir + "/events.jsonl");
    QVERIFY(f.open(QIODevice::Append));
    f.write("{\"seq\":3,\"at\":\"2026");
    f.close();
    const Result r = kwbShow({dir});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("c0001"));
    QVERIFY2(r.err.contains("warning: ignored a truncated last line"), qPrintable(r.err));
}

QTEST_GUILESS_MAIN(TestShowCli)
#include "tst_show_cli.moc"

// SPDX-License-Identifier: MIT
#include "model/json.h"
#include "store/runstore.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimeZone>

using namespace kwb;
using namespace kwb::store;

namespace {

RunInfo sampleInfo()
{
    RunInfo i;
    i.taskName = QStringLiteral("39_GRU");
    i.taskFile = QStringLiteral("tasks/level3/39_GRU.py");
    i.taskHash = QStringLiteral("abc123");
    i.provider = QStringLiteral("replay");
    i.model = QStringLiteral("deepseek-reasoner");
    i.createdAt = QDateTime(QDate(2026, 11, 22), QTime(14, 20, 0), QTimeZone::utc());
    i.settings = QJsonObject{{"seeds", 2}, {"trials", 5}};
    return i;
}

EvalResult sampleEval(double ms)
{
    EvalResult r;
    r.status = EvalStatus::Ok;
    r.reason = QStringLiteral("matches the reference");
    r.device = QStringLiteral("cpu");
    r.trials = 5;
    r.maxAbsErr = 1.5e-6;
    r.candidate.medianMs = ms;
    r.candidate.samples = 20;
    r.eager.medianMs = 2 * ms;
    r.eager.samples = 20;
    r.runtimeChecks.append(Verdict{QStringLiteral("integrity.caching"), Outcome::No, Severity::Info,
                                   QStringLiteral("no caching"), {{3, 4, QStringLiteral("x")}}, {}});
    return r;
}

/// Field-by-field equality through the JSON form (the value types' own serialisation).
QByteArray asJson(const Run &r)
{
    QJsonArray cs, xs, gs;
    for (const auto &c : r.candidates)
        cs.append(json::toJson(c));
    for (const auto &x : r.exchanges)
        xs.append(json::toJson(x));
    for (const auto &g : r.gates)
        gs.append(json::toJson(g));
    return QJsonDocument(QJsonObject{{"info", json::toJson(r.info)}, {"c", cs}, {"x", xs}, {"g", gs}})
        .toJson(QJsonDocument::Compact);
}

/// Fills a run with two candidates, one update, one exchange, one gate and an info change.
void fill(RunWriter &w)
{
    Candidate seed;
    seed.id = w.nextCandidateId();
    seed.kind = CandidateKind::Seed;
    seed.label = QStringLiteral("seed1");
    seed.exchangeIds = {QStringLiteral("x0001")};
    QVERIFY2(w.addCandidate(seed, QStringLiteral("import torch\nclass ModelNew: pass\n")), qPrintable(w.lastError()));
    seed.status = CandidateStatus::Evaluated;
    seed.eval = sampleEval(1.25);
    QVERIFY2(w.updateCandidate(seed), qPrintable(w.lastError()));

    Candidate repair;
    repair.id = w.nextCandidateId();
    repair.parentId = seed.id;
    repair.kind = CandidateKind::Repair;
    repair.label = QStringLiteral("seed1_repair1");
    repair.note = QStringLiteral("wrong result → repaired");
    QVERIFY(w.addCandidate(repair, QStringLiteral("# repaired ✓\n")));

    LlmExchange x;
    x.id = w.nextExchangeId();
    x.callType = QStringLiteral("seed1");
    x.messages = {{QStringLiteral("user"), QStringLiteral("write a kernel")}};
    x.inputTokens = 1200;
    QVERIFY(w.addExchange(x));
    x.response = QStringLiteral("```python\n...\n```");
    x.outputTokens = 900;
    QVERIFY(w.updateExchange(x));

    QVERIFY(w.addGate(GateRecord{QStringLiteral("after_eval:c0001"), QStringLiteral("approve"), {},
                                 seed.id, QDateTime(QDate(2026, 11, 22), QTime(14, 21, 0), QTimeZone::utc())}));
    RunInfo info = w.run().info;
    info.state = RunState::Finished;
    info.bestCandidateId = seed.id;
    QVERIFY(w.updateInfo(info));
    QVERIFY(w.appendLog(QStringLiteral("done")));
}

void appendBytes(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Append));
    f.write(bytes);
}

void writeBytes(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

} // namespace

class TestRunStore : public QObject {
    Q_OBJECT
private slots:
    void roundTrip();
    void eventLogAloneIsEnough();
    void staleSnapshotPlusNewerEvents();
    void uniqueDirectoriesAndListing();
    void crashRecoveryWithKilledWriter();
    void truncatedLastLine();
    void damagedMiddleLine();
    void damagedSnapshotOnly();
    void foreignDirectory();
    void newerSchema();
    void resumeThenAddIdsKeepIncreasing();
    void oneLiveWriter();
    void rejectsUnsafePathsAndDuplicates();
    void snapshotPrompts();
};

void TestRunStore::roundTrip()
{
    QTemporaryDir tmp;
    QString error;
    Run written;
    QString dir;
    {
        auto w = RunWriter::create(tmp.path(), sampleInfo(), &error);
        QVERIFY2(w, qPrintable(error));
        fill(*w);
        written = w->run();
        dir = w->directory();
        QCOMPARE(QFileInfo(dir).fileName(), runDirectoryName(sampleInfo().createdAt, "39_GRU", "replay"));
        QVERIFY(isRunDirectory(dir));
        // Readable while the writer is still alive.
        const auto live = openRun(dir, &error, nullptr, OpenOptions{.exchangeBodies = true});
        QVERIFY2(live, qPrintable(error));
        QCOMPARE(asJson(*live), asJson(written));
    }
    QStringList warnings;
    const auto run = openRun(dir, &error, &warnings, OpenOptions{.exchangeBodies = true});
    QVERIFY2(run, qPrintable(error));
    QVERIFY(warnings.isEmpty());
    QCOMPARE(asJson(*run), asJson(written));
    QCOMPARE(run->candidates.size(), 2);
    QCOMPARE(run->info.state, RunState::Finished);
    QCOMPARE(run->info.id, QFileInfo(dir).fileName());
    QCOMPARE(run->candidates[0].eval->candidate.medianMs, 1.25);
    QCOMPARE(run->candidates[1].note, QStringLiteral("wrong result → repaired"));
    QCOMPARE(run->exchanges[0].outputTokens, 900);
    QCOMPARE(run->gates.size(), 1);
    QCOMPARE(readCode(dir, run->candidates[1]), QStringLiteral("# repaired ✓\n"));
    QCOMPARE(run->exchanges[0].messages.size(), 1);
    QCOMPARE(run->exchanges[0].response, QStringLiteral("```python\n...\n```"));
    // A fast open leaves the (large) bodies on disk; readExchange fetches one whole.
    const auto light = openRun(dir, &error); // the default: headers only
    QVERIFY2(light, qPrintable(error));
    QVERIFY(light->exchanges[0].messages.isEmpty());
    QVERIFY(light->exchanges[0].response.isEmpty());
    QCOMPARE(light->exchanges[0].outputTokens, 900);
    const auto whole = readExchange(dir, QStringLiteral("x0001"), &error);
    QVERIFY2(whole, qPrintable(error));
    QCOMPARE(*whole, written.exchanges[0]);
    QVERIFY(!readExchange(dir, QStringLiteral("x0099"), &error));
    QVERIFY(!readExchange(dir, QStringLiteral("../run"), &error));
    // The event log and the snapshot hold no prompt text.
    for (const char *file : {"/events.jsonl", "/run.json"}) {
        QFile f(dir + file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(!f.readAll().contains("write a kernel"));
    }
    QVERIFY(QFile::exists(dir + "/evals/c0001.json"));
    QVERIFY(QFile::exists(dir + "/llm/x0001.json"));
    QVERIFY(QFile::exists(dir + "/run.json"));
    QFile log(dir + "/console.log");
    QVERIFY(log.open(QIODevice::ReadOnly));
    QCOMPARE(log.readAll(), QByteArray("done\n"));
}

void TestRunStore::eventLogAloneIsEnough()
{
    QTemporaryDir tmp;
    QString dir;
    Run written;
    {
        auto w = RunWriter::create(tmp.path(), sampleInfo());
        fill(*w);
        written = w->run();
        dir = w->directory();
    }
    QVERIFY(QFile::remove(dir + "/run.json"));
    QString error;
    const auto run = openRun(dir, &error, nullptr, OpenOptions{.exchangeBodies = true});
    QVERIFY2(run, qPrintable(error));
    QCOMPARE(asJson(*run), asJson(written));
}

void TestRunStore::staleSnapshotPlusNewerEvents()
{
    QTemporaryDir tmp;
    QString dir;
    QByteArray early;
    Run written;
    {
        auto w = RunWriter::create(tmp.path(), sampleInfo());
        Candidate c;
        c.id = w->nextCandidateId();
        QVERIFY(w->addCandidate(c, "a"));
        QVERIFY(w->writeSnapshot());
        QFile f(w->directory() + "/run.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        early = f.readAll();
        fill(*w);
        written = w->run();
        dir = w->directory();
    }
    // As if the process died long after its last snapshot: the events after it must be replayed.
    writeBytes(dir + "/run.json", early);
    QString error;
    const auto run = openRun(dir, &error, nullptr, OpenOptions{.exchangeBodies = true});
    QVERIFY2(run, qPrintable(error));
    QCOMPARE(run->candidates.size(), 3);
    QCOMPARE(asJson(*run), asJson(written));
    // A damaged snapshot is not fatal when the log is there: it is rebuilt, with a warning.
    writeBytes(dir + "/run.json", "{\"schema_version\":1, broken");
    QStringList warnings;
    const auto again = openRun(dir, &error, &warnings, OpenOptions{.exchangeBodies = true});
    QVERIFY2(again, qPrintable(error));
    QCOMPARE(asJson(*again), asJson(written));
    QCOMPARE(warnings.size(), 1);
    QVERIFY2(warnings[0].contains("run.json"), qPrintable(warnings[0]));
}

void TestRunStore::uniqueDirectoriesAndListing()
{
    QTemporaryDir tmp;
    RunInfo info = sampleInfo();
    info.taskName = QStringLiteral("a task/with:odd chars");
    auto a = RunWriter::create(tmp.path(), info);
    auto b = RunWriter::create(tmp.path(), info);
    QVERIFY(a && b);
    QVERIFY(a->directory() != b->directory());
    QCOMPARE(QFileInfo(a->directory()).fileName(), QStringLiteral("20261122-%1_a_task_with_odd_chars_replay")
                                                       .arg(info.createdAt.toLocalTime().toString("HHmmss")));
    QCOMPARE(QFileInfo(b->directory()).fileName(), QFileInfo(a->directory()).fileName() + "-2");
    RunInfo later = sampleInfo();
    later.createdAt = later.createdAt.addSecs(3600);
    auto c = RunWriter::create(tmp.path(), later);
    QDir(tmp.path()).mkdir("not_a_run");
    const QStringList runs = listRuns(tmp.path());
    QCOMPARE(runs, (QStringList{c->directory(), b->directory(), a->directory()}));
}

void TestRunStore::crashRecoveryWithKilledWriter()
{
    QTemporaryDir tmp;
    QProcess writer;
    writer.setProgram(QStringLiteral(KWB_CRASH_WRITER));
    writer.setArguments({"create", tmp.path()});
    writer.start();
    QVERIFY2(writer.waitForStarted(), qPrintable(writer.errorString()));

    // Read progress lines until the writer has recorded enough candidates, then SIGKILL it.
    QString dir;
    QStringList added;
    QByteArray pending;
    auto consume = [&] {
        pending += writer.readAllStandardOutput();
        qsizetype nl;
        while ((nl = pending.indexOf('\n')) >= 0) {
            const QString line = QString::fromUtf8(pending.left(nl));
            pending.remove(0, nl + 1);
            if (line.startsWith("dir "))
                dir = line.mid(4);
            else if (line.startsWith("added "))
                added << line.mid(6);
        }
    };
    QSignalSpy spy(&writer, &QProcess::readyReadStandardOutput);
    while (added.size() < 40) {
        if (!writer.bytesAvailable())
            QVERIFY2(spy.wait(20000), "the writer made no progress");
        consume();
        QCOMPARE(writer.state(), QProcess::Running);
    }
    writer.kill(); // SIGKILL: no destructor, no final snapshot
    QVERIFY(writer.waitForFinished());
    QCOMPARE(writer.exitStatus(), QProcess::CrashExit);
    consume(); // lines printed before the kill still count: those adds had returned
    QVERIFY(!dir.isEmpty());

    QString error;
    QStringList warnings;
    const auto run = openRun(dir, &error, &warnings);
    QVERIFY2(run, qPrintable(error));
    QVERIFY(run->candidates.size() >= added.size());
    for (const QString &id : std::as_const(added)) {
        const Candidate *c = run->candidate(id);
        QVERIFY2(c, qPrintable("lost candidate " + id));
        QVERIFY(readCode(dir, *c).contains("line 149"));
    }
    // Nothing beyond what was recorded, and in order.
    for (int i = 0; i < run->candidates.size(); ++i)
        QCOMPARE(run->candidates[i].id, QStringLiteral("c%1").arg(i + 1, 4, 10, QLatin1Char('0')));

    // The run is resumable by another process and continues with fresh ids.
    QProcess resumer;
    resumer.start(QStringLiteral(KWB_CRASH_WRITER), {"resume", dir, "3"});
    QVERIFY(resumer.waitForFinished(30000));
    QVERIFY2(resumer.exitCode() == 0, resumer.readAllStandardError().constData());
    const QString out = QString::fromUtf8(resumer.readAllStandardOutput());
    QVERIFY2(out.contains(QStringLiteral("added c%1").arg(run->candidates.size() + 1, 4, 10, QLatin1Char('0'))),
             qPrintable(out));
    const auto after = openRun(dir, &error, &warnings);
    QVERIFY2(after, qPrintable(error));
    QVERIFY(warnings.isEmpty()); // resume cut any torn tail
    QCOMPARE(after->candidates.size(), run->candidates.size() + 3);
    QVERIFY(after->candidates.last().eval.has_value());
}

void TestRunStore::truncatedLastLine()
{
    QTemporaryDir tmp;
    QString dir;
    Run written;
    {
        auto w = RunWriter::create(tmp.path(), sampleInfo());
        fill(*w);
        written = w->run();
        dir = w->directory();
    }
    QFile::remove(dir + "/run.json");
    appendBytes(dir + "/events.jsonl", "{\"seq\":99,\"at\":\"2026-11-22T14:20:00Z\",\"type\":\"candidate_added\",\"data\":{\"id\":\"c00");
    QString error;
    QStringList warnings;
    auto run = openRun(dir, &error, &warnings, OpenOptions{.exchangeBodies = true});
    QVERIFY2(run, qPrintable(error));
    QCOMPARE(asJson(*run), asJson(written));
    QCOMPARE(warnings.size(), 1);
    QVERIFY2(warnings[0].contains("truncated last line"), qPrintable(warnings[0]));

    auto w = RunWriter::resume(dir, &error);
    QVERIFY2(w, qPrintable(error));
    QCOMPARE(w->warnings().size(), 1);
    Candidate c;
    c.id = w->nextCandidateId();
    QCOMPARE(c.id, QStringLiteral("c0003"));
    QVERIFY(w->addCandidate(c, "x"));
    w.reset();
    QFile::remove(dir + "/run.json");
    run = openRun(dir, &error, &warnings);
    QVERIFY2(run, qPrintable(error));
    QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join('\n')));
    QCOMPARE(run->candidates.size(), 3);
}

void TestRunStore::damagedMiddleLine()
{
    QTemporaryDir tmp;
    QString dir;
    {
        auto w = RunWriter::create(tmp.path(), sampleInfo());
        fill(*w);
        dir = w->directory();
    }
    QFile f(dir + "/events.jsonl");
    QVERIFY(f.open(QIODevice::ReadOnly));
    QList<QByteArray> lines = f.readAll().split('\n');
    f.close();
    lines[2] = lines[2].left(lines[2].size() / 2); // line 3 of many: damage, not a torn tail
    writeBytes(dir + "/events.jsonl", lines.join('\n'));
    QFile::remove(dir + "/run.json");
    QString error;
    QVERIFY(!openRun(dir, &error));
    QVERIFY2(error.contains("damaged JSON") && error.contains("events.jsonl line 3"), qPrintable(error));
    QVERIFY(!RunWriter::resume(dir, &error));
    QVERIFY2(error.contains("events.jsonl line 3"), qPrintable(error));
}

void TestRunStore::damagedSnapshotOnly()
{
    QTemporaryDir tmp;
    writeBytes(tmp.path() + "/run.json", "{\n  \"schema_version\": 1,\n  \"info\": {\n    \"id\": oops\n}\n");
    QString error;
    QVERIFY(!openRun(tmp.path(), &error));
    QVERIFY2(error.contains("damaged JSON") && error.contains("run.json line 4"), qPrintable(error));
}

void TestRunStore::foreignDirectory()
{
    QTemporaryDir tmp;
    writeBytes(tmp.path() + "/notes.txt", "hello");
    QString error;
    QVERIFY(!isRunDirectory(tmp.path()));
    QVERIFY(!openRun(tmp.path(), &error));
    QCOMPARE(error, "not a Kernel Workbench run: no events.jsonl or run.json in " + tmp.path());
    QVERIFY(!openRun(tmp.path() + "/notes.txt", &error));
    QVERIFY2(error.startsWith("not a directory"), qPrintable(error));
    QVERIFY(!openRun(tmp.path() + "/missing", &error));
    QVERIFY2(error.startsWith("no such directory"), qPrintable(error));
    QVERIFY(!RunWriter::resume(tmp.path(), &error));
    QVERIFY2(error.startsWith("not a Kernel Workbench run"), qPrintable(error));
    // A JSON file of another program called run.json is not a run either.
    writeBytes(tmp.path() + "/run.json", "{\"name\": \"something else\"}");
    QVERIFY(!openRun(tmp.path(), &error));
    QVERIFY2(error.contains("not a Kernel Workbench run"), qPrintable(error));
}

void TestRunStore::newerSchema()
{
    QTemporaryDir tmp;
    QDir(tmp.path()).mkdir("a");
    QDir(tmp.path()).mkdir("b");
    writeBytes(tmp.path() + "/a/events.jsonl",
               "{\"seq\":1,\"at\":\"2026-11-22T14:20:00Z\",\"type\":\"run_created\",\"data\":{\"schema_version\":7,\"info\":{}}}\n");
    writeBytes(tmp.path() + "/b/run.json", "{\"schema_version\":7,\"info\":{}}");
    for (const char *sub : {"a", "b"}) {
        QString error;
        QVERIFY(!openRun(tmp.path() + "/" + sub, &error));
        QVERIFY2(error.contains("schema version 7, newer than this build supports (1)"), qPrintable(error));
    }
}

void TestRunStore::resumeThenAddIdsKeepIncreasing()
{
    QTemporaryDir tmp;
    QString dir;
    {
        auto w = RunWriter::create(tmp.path(), sampleInfo());
        fill(*w); // c0001, c0002, x0001
        dir = w->directory();
    }
    QString error;
    auto w = RunWriter::resume(dir, &error);
    QVERIFY2(w, qPrintable(error));
    QCOMPARE(w->run().candidates.size(), 2);
    QCOMPARE(w->nextCandidateId(), QStringLiteral("c0003"));
    QCOMPARE(w->nextCandidateId(), QStringLiteral("c0004"));
    QCOMPARE(w->nextExchangeId(), QStringLiteral("x0002"));
    Candidate c;
    c.id = QStringLiteral("c0010"); // an id chosen by the caller moves the counter too
    c.parentId = QStringLiteral("c0002");
    c.kind = CandidateKind::ManualEdit;
    QVERIFY(w->addCandidate(c, "edited"));
    QCOMPARE(w->nextCandidateId(), QStringLiteral("c0011"));
    w.reset();
    w = RunWriter::resume(dir, &error);
    QVERIFY2(w, qPrintable(error));
    QCOMPARE(w->nextCandidateId(), QStringLiteral("c0011"));
    const Candidate *edited = w->run().candidate("c0010");
    QVERIFY(edited);
    QCOMPARE(edited->kind, CandidateKind::ManualEdit);
    QCOMPARE(readCode(dir, *edited), QStringLiteral("edited"));
}

void TestRunStore::oneLiveWriter()
{
    QTemporaryDir tmp;
    auto w = RunWriter::create(tmp.path(), sampleInfo());
    QVERIFY(w);
    QString error;
    QVERIFY(!RunWriter::resume(w->directory(), &error));
    QVERIFY2(error.contains("being written by another process"), qPrintable(error));
    const QString dir = w->directory();
    w.reset();
    QVERIFY2(RunWriter::resume(dir, &error), qPrintable(error));
}

void TestRunStore::rejectsUnsafePathsAndDuplicates()
{
    QTemporaryDir tmp;
    auto w = RunWriter::create(tmp.path(), sampleInfo());
    QVERIFY(!w->writeFile("../escape.txt", "x"));
    QVERIFY(!w->writeFile("/etc/passwd", "x"));
    QVERIFY(!w->writeFile("events.jsonl", "x"));
    QVERIFY(w->writeFile("extra/profile.txt", "ncu"));
    QVERIFY(QFile::exists(w->directory() + "/extra/profile.txt"));
    Candidate c;
    c.id = QStringLiteral("../c1");
    QVERIFY(!w->addCandidate(c, "x"));
    c.id = QStringLiteral("c0001");
    QVERIFY(w->addCandidate(c, "x"));
    QVERIFY(!w->addCandidate(c, "y"));
    QVERIFY2(w->lastError().contains("already exists"), qPrintable(w->lastError()));
    c.id = QStringLiteral("c0099");
    QVERIFY(!w->updateCandidate(c));
    QCOMPARE(w->run().candidates.size(), 1);
}

void TestRunStore::snapshotPrompts()
{
    QTemporaryDir tmp;
    QDir(tmp.path()).mkpath("prompts/seed");
    writeBytes(tmp.path() + "/prompts/seed/system.md", "You are a kernel engineer.");
    auto w = RunWriter::create(tmp.path() + "/runs", sampleInfo());
    QVERIFY(w->snapshotPrompts(tmp.path() + "/prompts"));
    QFile f(w->directory() + "/prompts/seed/system.md");
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("You are a kernel engineer."));
    QVERIFY(!w->snapshotPrompts(tmp.path() + "/nope"));
}

QTEST_GUILESS_MAIN(TestRunStore)
#include "tst_runstore.moc"

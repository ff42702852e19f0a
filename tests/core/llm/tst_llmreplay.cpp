// SPDX-License-Identifier: MIT
// The replay provider: cassettes and run directories, matching by call type and order, the
// prompt-hash check with its mismatch report, lenient replay, streaming in pieces; token table.
#include "llm/replayprovider.h"
#include "llm/tokens.h"
#include "model/json.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;
using namespace kwb::llm;

namespace {
QList<ChatMessage> prompt(const QString &task, const QString &extra = {})
{
    return {{QStringLiteral("system"), QStringLiteral("You write Triton kernels.")},
            {QStringLiteral("user"), QStringLiteral("Task:\n%1\nGPU: H100\n%2").arg(task, extra)}};
}

LlmExchange recorded(const QString &callType, const QList<ChatMessage> &messages, const QString &response,
                     int in = 100, int out = 50)
{
    LlmExchange x;
    x.callType = callType;
    x.provider = QStringLiteral("deepseek");
    x.model = QStringLiteral("deepseek-chat");
    x.messages = messages;
    x.promptHash = promptHash(messages);
    x.response = response;
    x.inputTokens = in;
    x.outputTokens = out;
    return x;
}

ProviderConfig replayConfig(const QString &cassette = {})
{
    ProviderConfig c = builtinProviders().last();
    c.cassette = cassette;
    c.replayChunkChars = 5;
    return c;
}

LlmExchange serve(ReplayProvider &p, const QString &callType, const QList<ChatMessage> &messages,
                  QStringList *deltas = nullptr)
{
    LlmCall *call = p.send({callType, messages, {}});
    QStringList pieces;
    QObject::connect(call, &LlmCall::delta, call, [&pieces](const QString &t) { pieces << t; });
    QSignalSpy finished(call, &LlmCall::finished);
    if (!call->isFinished() && !finished.wait(5000))
        return {};
    if (deltas)
        *deltas = pieces;
    return call->exchange();
}
} // namespace

class TstLlmReplay : public QObject
{
    Q_OBJECT

    QList<LlmExchange> story()
    {
        return {recorded(QStringLiteral("seed1"), prompt(QStringLiteral("GRU")), QStringLiteral("seed one answer")),
                recorded(QStringLiteral("seed2"), prompt(QStringLiteral("GRU"), QStringLiteral("v2")),
                         QStringLiteral("seed two answer")),
                recorded(QStringLiteral("seed1_repair1"), prompt(QStringLiteral("GRU"), QStringLiteral("fix it")),
                         QStringLiteral("first repair")),
                recorded(QStringLiteral("seed1_repair1"), prompt(QStringLiteral("GRU"), QStringLiteral("fix again")),
                         QStringLiteral("second answer of the same type"))};
    }

private Q_SLOTS:
    void servesByCallTypeAndOrder()
    {
        ReplayProvider p(replayConfig(), story());
        QVERIFY(p.isValid());
        // Out of the recorded order across types: matching is per call type.
        QStringList deltas;
        const LlmExchange two = serve(p, QStringLiteral("seed2"), prompt(QStringLiteral("GRU"), QStringLiteral("v2")),
                                      &deltas);
        QVERIFY2(two.error.isEmpty(), qPrintable(two.error));
        QCOMPARE(two.response, QStringLiteral("seed two answer"));
        QCOMPARE(deltas.size(), 3); // 15 characters in pieces of 5: it streams
        QCOMPARE(deltas.join(QString()), two.response);
        QCOMPARE(two.callType, QStringLiteral("seed2"));
        QCOMPARE(two.inputTokens, 100);
        QCOMPARE(two.provider, QStringLiteral("replay"));
        QCOMPARE(two.model, QStringLiteral("deepseek-chat"));
        QCOMPARE(serve(p, QStringLiteral("seed1"), prompt(QStringLiteral("GRU"))).response,
                 QStringLiteral("seed one answer"));
        QCOMPARE(p.remaining(QStringLiteral("seed1_repair1")), 2);
        QCOMPARE(serve(p, QStringLiteral("seed1_repair1"), prompt(QStringLiteral("GRU"), QStringLiteral("fix it"))).response,
                 QStringLiteral("first repair"));
        QCOMPARE(serve(p, QStringLiteral("seed1_repair1"), prompt(QStringLiteral("GRU"), QStringLiteral("fix again")))
                     .response,
                 QStringLiteral("second answer of the same type"));
        const LlmExchange none = serve(p, QStringLiteral("seed1_repair1"), prompt(QStringLiteral("GRU")));
        QVERIFY(none.error.contains(QStringLiteral("no answer for call seed1_repair1 #3")));
    }

    void mismatchReportsFirstDifference()
    {
        ReplayProvider p(replayConfig(), story());
        QVERIFY(serve(p, QStringLiteral("seed1_repair1"), prompt(QStringLiteral("GRU"), QStringLiteral("fix it")))
                    .error.isEmpty());
        const LlmExchange x
            = serve(p, QStringLiteral("seed1_repair1"), prompt(QStringLiteral("GRU"), QStringLiteral("fix AGAIN")));
        QVERIFY(!x.error.isEmpty());
        QVERIFY(x.response.isEmpty());
        QVERIFY2(x.error.contains(QStringLiteral("seed1_repair1 #2")), qPrintable(x.error));
        QVERIFY2(x.error.contains(QStringLiteral("line 7")), qPrintable(x.error)); // [system], 1, [user], Task:, GRU, GPU, <- here
        QVERIFY(x.error.contains(QStringLiteral("recorded: \"fix again\"")));
        QVERIFY(x.error.contains(QStringLiteral("now:      \"fix AGAIN\"")));
    }

    void lenientServesAnyway()
    {
        ProviderConfig c = replayConfig();
        c.replayLenient = true;
        ReplayProvider p(c, story());
        QSignalSpy ignored(&p, &ReplayProvider::mismatchIgnored);
        const LlmExchange x = serve(p, QStringLiteral("seed1"), prompt(QStringLiteral("GRU, edited by a person")));
        QVERIFY2(x.error.isEmpty(), qPrintable(x.error));
        QCOMPARE(x.response, QStringLiteral("seed one answer"));
        QCOMPARE(ignored.count(), 1);
        QVERIFY(ignored.first().first().toString().contains(QStringLiteral("seed1 #1")));
        QCOMPARE(x.promptHash, promptHash(prompt(QStringLiteral("GRU, edited by a person")))); // what was really sent
    }

    void failedRecordingsAreSkipped()
    {
        QList<LlmExchange> xs = story();
        LlmExchange failed = xs.first();
        failed.error = QStringLiteral("HTTP 500");
        failed.response.clear();
        xs.prepend(failed);
        ReplayProvider p(replayConfig(), xs);
        QCOMPARE(serve(p, QStringLiteral("seed1"), prompt(QStringLiteral("GRU"))).response,
                 QStringLiteral("seed one answer"));
    }

    void cassetteFileRoundTrip()
    {
        QTemporaryDir dir;
        Cassette c;
        c.metadata = QJsonObject{{"task", "39_GRU"}, {"authored_by", "kwb"}};
        c.exchanges = story();
        const QString file = dir.filePath(QStringLiteral("39_GRU.json"));
        QString error;
        QVERIFY2(saveCassette(c, file, &error), qPrintable(error));
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(o.value("format").toString(), QStringLiteral("kwb-cassette"));
        QCOMPARE(o.value("version").toInt(), 1);

        auto provider = createProvider(replayConfig(file), &error);
        QVERIFY2(provider, qPrintable(error));
        auto *replay = qobject_cast<ReplayProvider *>(provider.get());
        QVERIFY(replay);
        QCOMPARE(replay->metadata().value("task").toString(), QStringLiteral("39_GRU"));
        QCOMPARE(serve(*replay, QStringLiteral("seed2"), prompt(QStringLiteral("GRU"), QStringLiteral("v2"))).response,
                 QStringLiteral("seed two answer"));
    }

    void runDirectoryForms()
    {
        QTemporaryDir dir;
        // llm/<xid>.json, one exchange per file, in name order: what the run store writes
        QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("llm")));
        const auto xs = story();
        for (int i = 0; i < xs.size(); ++i) {
            QFile f(dir.filePath(QStringLiteral("llm/x%1.json").arg(i, 4, 10, QLatin1Char('0'))));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QJsonDocument(json::toJson(xs.at(i))).toJson());
        }
        QString error;
        auto c = loadCassette(dir.path(), &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->exchanges, xs);

        QTemporaryDir jsonl;
        QFile f(jsonl.filePath(QStringLiteral("exchanges.jsonl")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        for (const auto &x : xs)
            f.write(QJsonDocument(json::toJson(x)).toJson(QJsonDocument::Compact) + '\n');
        f.close();
        c = loadCassette(jsonl.path(), &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->exchanges.size(), xs.size());
    }

    void badCassettes()
    {
        QTemporaryDir dir;
        QString error;
        QVERIFY(!createProvider(replayConfig(), &error));
        QVERIFY(error.contains(QStringLiteral("cassette")));
        QVERIFY(!createProvider(replayConfig(dir.filePath(QStringLiteral("nope.json"))), &error));
        QVERIFY(error.contains(QStringLiteral("does not exist")));
        QFile f(dir.filePath(QStringLiteral("other.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format":"something-else"})");
        f.close();
        QVERIFY(!createProvider(replayConfig(f.fileName()), &error));
        QVERIFY(error.contains(QStringLiteral("not a cassette")));
        QVERIFY(!loadCassette(QTemporaryDir().path(), &error)); // an empty directory
    }

    void cancelReplay()
    {
        ReplayProvider p(replayConfig(), story());
        LlmCall *call = p.send({QStringLiteral("seed1"), prompt(QStringLiteral("GRU")), {}});
        QSignalSpy finished(call, &LlmCall::finished);
        QSignalSpy deltas(call, &LlmCall::delta);
        QVERIFY(deltas.wait(2000));
        call->cancel();
        QCOMPARE(finished.count(), 1);
        QCOMPARE(call->exchange().error, QStringLiteral("cancelled"));
        QVERIFY(!finished.wait(100));
    }

    void tokenTableRows()
    {
        QList<LlmExchange> xs = story();
        xs[0].costUsd = 0.25;
        xs[3].tokensEstimated = true;
        const auto rows = tokenTable(xs);
        QCOMPARE(rows.size(), 4); // seed1, seed2, seed1_repair1, total
        QCOMPARE(rows.at(0).callType, QStringLiteral("seed1"));
        QCOMPARE(rows.at(2).callType, QStringLiteral("seed1_repair1"));
        QCOMPARE(rows.at(2).calls, 2);
        QCOMPARE(rows.at(2).input, 200);
        QCOMPARE(rows.at(2).total, 300);
        QVERIFY(rows.at(2).estimated);
        QVERIFY(!rows.at(0).estimated);
        QCOMPARE(rows.last().callType, QStringLiteral("total"));
        QCOMPARE(rows.last().input, 400);
        QCOMPARE(rows.last().output, 200);
        QCOMPARE(rows.last().total, 600);
        QCOMPARE(rows.last().costUsd, 0.25);
        const QString text = formatTokenTable(rows);
        QVERIFY(text.contains(QStringLiteral("seed1_repair1")));
        QVERIFY(text.contains(QStringLiteral("600")));
        QCOMPARE(tokenTable({}).size(), 1);
    }

    void estimates()
    {
        QCOMPARE(estimateTokens(QString()), 0);
        QCOMPARE(estimateTokens(QStringLiteral("abcd")), 1);
        QCOMPARE(estimateTokens(QStringLiteral("abcde")), 2);
        QCOMPARE(estimateTokens(QString::fromUtf8("日本語")), 3);
        QCOMPARE(estimateTokens(QString::fromUtf8("🚀")), 1); // one character, two UTF-16 units
        QCOMPARE(costUsd(builtinProviders().at(0), 1'000'000, 0), builtinProviders().at(0).inputUsdPerMTok);
    }

    void promptHashIsStable()
    {
        const auto a = prompt(QStringLiteral("GRU"));
        QCOMPARE(promptHash(a), promptHash(prompt(QStringLiteral("GRU"))));
        QCOMPARE(promptHash(a).size(), 64);
        QVERIFY(promptHash(a) != promptHash(prompt(QStringLiteral("GRU "))));
        auto swapped = a;
        swapped[0].role = QStringLiteral("user");
        QVERIFY(promptHash(a) != promptHash(swapped));
    }
};

QTEST_GUILESS_MAIN(TstLlmReplay)
#include "tst_llmreplay.moc"

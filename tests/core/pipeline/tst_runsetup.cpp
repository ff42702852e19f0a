// SPDX-License-Identifier: MIT
// Choosing a run's provider (shared by `kwb run` and the GUI): real provider with a key, the shipped
// cassette without one, explicit cassettes, the replay provider by name, and the errors.
#include "llm/llmprovider.h"
#include "llm/replayprovider.h"
#include "pipeline/cassettes.h"
#include "pipeline/runsetup.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;
using namespace kwb::pipeline;

class TestRunSetup : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    QString m_task;

private Q_SLOTS:
    void initTestCase()
    {
        // No keys from this machine's environment or config: every case below decides it itself.
        qputenv("KWB_CONFIG_DIR", m_tmp.filePath(QStringLiteral("config")).toUtf8());
        qunsetenv("DEEPSEEK_API_KEY");
        qunsetenv("OPENAI_API_KEY");
        qunsetenv("KWB_PROVIDER");
        QString error;
        m_task = resolveTaskFile(QStringLiteral("1_ReLU"), &error);
        QVERIFY2(!m_task.isEmpty(), qPrintable(error));
        QVERIFY(m_task.endsWith(QLatin1String("1_ReLU.py")));
        QVERIFY(!shippedCassette(QStringLiteral("1_ReLU")).isEmpty());
    }

    void resolvesTasks()
    {
        QString error;
        QCOMPARE(resolveTaskFile(m_task, &error), m_task);
        QVERIFY(resolveTaskFile(QStringLiteral("no_such_task_42"), &error).isEmpty());
        QVERIFY(error.contains(QLatin1String("no_such_task_42")));
    }

    void defaultProviderWithoutKeyReplaysTheShippedCassette()
    {
        ProviderRequest r;
        r.taskFile = m_task;
        ProviderSetup s = setUpProvider(r);
        QVERIFY2(s, qPrintable(s.errorText));
        QVERIFY(s.shippedReplay);
        QCOMPARE(s.missingKeyProvider, QStringLiteral("deepseek"));
        QCOMPARE(s.cassette, QFileInfo(shippedCassette(QStringLiteral("1_ReLU"))).absoluteFilePath());
        QCOMPARE(s.config.wire, QStringLiteral("replay"));
        QVERIFY(s.config.replayLenient);
        QVERIFY(qobject_cast<llm::ReplayProvider *>(s.provider.get()));
        QVERIFY(!s.authoredBy.isEmpty());
    }

    void namedProviderWithoutKey()
    {
        ProviderRequest r;
        r.taskFile = m_task;
        r.provider = QStringLiteral("openai");
        ProviderSetup s = setUpProvider(r); // the CLI: a named provider is not replaced silently
        QVERIFY(!s);
        QCOMPARE(s.error, ProviderSetupError::NoApiKey);
        QVERIFY(s.errorText.contains(QLatin1String("OPENAI_API_KEY")));
        r.namedProviderFallsBack = true; // the GUI: falls back, and says so
        s = setUpProvider(r);
        QVERIFY2(s, qPrintable(s.errorText));
        QVERIFY(s.shippedReplay);
        QCOMPARE(s.missingKeyProvider, QStringLiteral("openai"));
    }

    void withKeyTheRealProvider()
    {
        qputenv("OPENAI_API_KEY", "sk-test-not-a-real-key");
        ProviderRequest r;
        r.taskFile = m_task;
        r.provider = QStringLiteral("openai");
        r.model = QStringLiteral("gpt-test");
        ProviderSetup s = setUpProvider(r);
        qunsetenv("OPENAI_API_KEY");
        QVERIFY2(s, qPrintable(s.errorText));
        QVERIFY(!s.shippedReplay);
        QVERIFY(s.cassette.isEmpty());
        QCOMPARE(s.config.name, QStringLiteral("openai"));
        QCOMPARE(s.config.model, QStringLiteral("gpt-test"));
        QVERIFY(!qobject_cast<llm::ReplayProvider *>(s.provider.get()));
    }

    void replayByNameAndExplicitCassette()
    {
        ProviderRequest r;
        r.taskFile = m_task;
        r.provider = QStringLiteral("replay");
        ProviderSetup s = setUpProvider(r);
        QVERIFY2(s, qPrintable(s.errorText));
        QVERIFY(s.shippedReplay);
        QVERIFY(s.missingKeyProvider.isEmpty());

        ProviderRequest c;
        c.taskFile = m_task;
        c.cassette = shippedCassette(QStringLiteral("1_ReLU"));
        s = setUpProvider(c);
        QVERIFY2(s, qPrintable(s.errorText));
        QVERIFY(!s.shippedReplay);
        QVERIFY(!s.config.replayLenient); // an explicit cassette replays strictly unless asked
        c.lenient = true;
        QVERIFY(setUpProvider(c).config.replayLenient);

        c.cassette = m_tmp.filePath(QStringLiteral("missing.json"));
        s = setUpProvider(c);
        QVERIFY(!s);
        QCOMPARE(s.error, ProviderSetupError::ProviderFailed);
        QVERIFY(!s.errorText.isEmpty());
    }

    void unknownProvider()
    {
        ProviderRequest r;
        r.taskFile = m_task;
        r.provider = QStringLiteral("no-such-provider");
        const ProviderSetup s = setUpProvider(r);
        QVERIFY(!s);
        QCOMPARE(s.error, ProviderSetupError::UnknownProvider);
    }

    void noCassetteForTheTask()
    {
        ProviderRequest r;
        r.taskFile = m_tmp.filePath(QStringLiteral("99_Unknown.py"));
        ProviderSetup s = setUpProvider(r);
        QVERIFY(!s);
        QCOMPARE(s.error, ProviderSetupError::NoApiKey);
        QVERIFY(s.errorText.contains(QLatin1String("no shipped cassette")));
    }
};

QTEST_GUILESS_MAIN(TestRunSetup)
#include "tst_runsetup.moc"

// SPDX-License-Identifier: MIT
// NewRunDialog: the form's validation (clear messages, OK disabled, accept refused), the settings
// struct it returns, and NewRunSettings::validate on its own.

#include "newrun/newrundialog.h"
#include "pipeline/pipeline.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;

namespace {

Task task(const QString &dir, const QString &name)
{
    Task t;
    t.name = name;
    t.path = dir + u'/' + name + QStringLiteral(".py");
    t.level = 1;
    t.family = QStringLiteral("elementwise");
    QFile f(t.path);
    if (f.open(QIODevice::WriteOnly))
        f.write("import torch\nclass Model(torch.nn.Module):\n    pass\ndef get_inputs(): return []\n"
                "def get_init_inputs(): return []\n");
    return t;
}

QList<llm::ProviderConfig> providers()
{
    llm::ProviderConfig a;
    a.name = QStringLiteral("replay");
    a.wire = QStringLiteral("replay");
    a.model = QStringLiteral("deepseek-chat");
    llm::ProviderConfig b;
    b.name = QStringLiteral("ollama");
    b.wire = QStringLiteral("openai");
    b.model.clear(); // no default model: one must be typed
    llm::ProviderConfig c;
    c.name = QStringLiteral("deepseek");
    c.wire = QStringLiteral("openai");
    c.model = QStringLiteral("deepseek-chat");
    c.apiKeyEnv = QStringLiteral("KWB_TEST_KEY_THAT_IS_NOT_SET");
    return {a, b, c};
}

bool containsLike(const QStringList &list, const QString &part)
{
    return std::any_of(list.begin(), list.end(), [&](const QString &s) { return s.contains(part); });
}

} // namespace

class TestNewRunDialog : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_tasks = {task(m_dir.path(), QStringLiteral("1_Add")), task(m_dir.path(), QStringLiteral("39_GRU"))};
    }

    void formValidation()
    {
        NewRunDialog d(m_tasks, providers());
        auto *ok = d.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        auto *problems = d.findChild<QLabel *>(QStringLiteral("problems"));
        // Nothing chosen yet: the task is missing, OK is off, the message says so.
        QVERIFY(containsLike(d.problems(), QStringLiteral("Choose a task")));
        QVERIFY(!ok->isEnabled());
        QVERIFY(problems->text().contains(QStringLiteral("Choose a task")));
        d.accept();
        QCOMPARE(d.result(), int(QDialog::Rejected)); // refused, still open

        auto *taskBox = d.findChild<QComboBox *>(QStringLiteral("task"));
        taskBox->setCurrentIndex(2);
        QCOMPARE(d.problems(), QStringList());
        QVERIFY(ok->isEnabled());
        QVERIFY(problems->text().isEmpty());

        auto *atol = d.findChild<QLineEdit *>(QStringLiteral("atol"));
        auto *rtol = d.findChild<QLineEdit *>(QStringLiteral("rtol"));
        atol->setText(QStringLiteral("abc"));
        QVERIFY(containsLike(d.problems(), QStringLiteral("atol must be a number")));
        QVERIFY(!ok->isEnabled());
        atol->setText(QStringLiteral("0"));
        rtol->setText(QStringLiteral("0"));
        QVERIFY(containsLike(d.problems(), QStringLiteral("cannot both be 0")));
        rtol->setText(QStringLiteral("5"));
        QVERIFY(containsLike(d.problems(), QStringLiteral("rtol = 5 is above 1")));
        rtol->setText(QStringLiteral("1e-3"));
        QCOMPARE(d.problems(), QStringList());

        d.findChild<QSpinBox *>(QStringLiteral("seeds"))->setValue(0);
        QVERIFY(containsLike(d.problems(), QStringLiteral("Seeds must be between 1 and 8")));
        d.findChild<QSpinBox *>(QStringLiteral("seeds"))->setValue(3);
        d.findChild<QSpinBox *>(QStringLiteral("trials"))->setValue(0);
        QVERIFY(containsLike(d.problems(), QStringLiteral("trials must be between 1 and 100")));
        d.findChild<QSpinBox *>(QStringLiteral("trials"))->setValue(7);

        // A provider without a default model needs one typed in.
        auto *provider = d.findChild<QComboBox *>(QStringLiteral("provider"));
        auto *model = d.findChild<QComboBox *>(QStringLiteral("model"));
        provider->setCurrentIndex(provider->findData(QStringLiteral("ollama")));
        QVERIFY(containsLike(d.problems(), QStringLiteral("has no default model")));
        model->setCurrentText(QStringLiteral("qwen2.5-coder:32b"));
        QCOMPARE(d.problems(), QStringList());
        // A provider without a key is allowed, with a note.
        provider->setCurrentIndex(provider->findData(QStringLiteral("deepseek")));
        QVERIFY(d.findChild<QLabel *>(QStringLiteral("keyNote"))->text().contains(QStringLiteral("KWB_TEST_KEY_THAT_IS_NOT_SET")));
        QCOMPARE(d.problems(), QStringList());

        auto *gates = d.findChild<QComboBox *>(QStringLiteral("gates"));
        gates->setCurrentIndex(gates->findData(int(pipeline::GatePolicy::All)));
        auto *device = d.findChild<QComboBox *>(QStringLiteral("device"));
        device->setCurrentIndex(device->findData(QStringLiteral("cpu")));
        d.accept();
        QCOMPARE(d.result(), int(QDialog::Accepted));

        const NewRunSettings s = d.settings();
        QCOMPARE(s.taskName, QStringLiteral("39_GRU"));
        QCOMPARE(s.taskFile, m_tasks.at(1).path);
        QCOMPARE(s.provider, QStringLiteral("deepseek"));
        QCOMPARE(s.model, QStringLiteral("deepseek-chat"));
        QCOMPARE(s.seeds, 3);
        QCOMPARE(s.gatePolicy, pipeline::GatePolicy::All);
        QCOMPARE(s.atol, 0.0);
        QCOMPARE(s.rtol, 1e-3);
        QCOMPARE(s.trials, 7);
        QCOMPARE(s.device, QStringLiteral("cpu"));

        pipeline::PipelineConfig config;
        s.applyTo(&config);
        QCOMPARE(config.taskFile, s.taskFile);
        QCOMPARE(config.seeds, 3);
        QCOMPARE(config.eval.trials, 7);
        QCOMPARE(config.eval.device, QStringLiteral("cpu"));
        QCOMPARE(config.gatePolicy, pipeline::GatePolicy::All);

        const NewRunSettings back = NewRunSettings::fromJson(s.toJson());
        QCOMPARE(back.toJson(), s.toJson());
    }

    void setSettingsFillsTheForm()
    {
        NewRunSettings s;
        s.taskName = QStringLiteral("1_Add");
        s.provider = QStringLiteral("replay");
        s.seeds = 4;
        s.gatePolicy = pipeline::GatePolicy::None;
        s.atol = 2e-5;
        s.device = QStringLiteral("cuda");
        NewRunDialog d(m_tasks, providers());
        d.setSettings(s);
        const NewRunSettings got = d.settings();
        QCOMPARE(got.taskFile, m_tasks.at(0).path);
        QCOMPARE(got.seeds, 4);
        QCOMPARE(got.gatePolicy, pipeline::GatePolicy::None);
        QCOMPARE(got.atol, 2e-5);
        QCOMPARE(got.device, QStringLiteral("cuda"));
        QCOMPARE(got.model, QStringLiteral("deepseek-chat"));
        QCOMPARE(d.problems(), QStringList());

        // The filter hides the tasks that do not match.
        d.findChild<QLineEdit *>(QStringLiteral("taskFilter"))->setText(QStringLiteral("gru"));
        auto *list = qobject_cast<QListView *>(d.findChild<QComboBox *>(QStringLiteral("task"))->view());
        QVERIFY(list->isRowHidden(1));
        QVERIFY(!list->isRowHidden(2));
        QCOMPARE(d.settings().taskName, QStringLiteral("39_GRU"));
    }

    void profilingCheckbox()
    {
        NewRunDialog d(m_tasks, providers());
        auto *box = d.findChild<QCheckBox *>(QStringLiteral("profile"));
        QVERIFY(box);
        QVERIFY(box->isChecked()); // on by default: the analysis reads measurements
        box->setChecked(false);
        const NewRunSettings off = d.settings();
        QVERIFY(!off.profile);
        pipeline::PipelineConfig cfg;
        off.applyTo(&cfg);
        QVERIFY(!cfg.profile);
        QVERIFY(!NewRunSettings::fromJson(off.toJson()).profile);
        QVERIFY(NewRunSettings::fromJson(QJsonObject()).profile); // last choices saved before the box
        d.setSettings(NewRunSettings());
        QVERIFY(box->isChecked());
    }

    void validateOnItsOwn()
    {
        NewRunSettings s;
        s.taskName = QStringLiteral("1_Add");
        s.taskFile = m_tasks.at(0).path;
        s.provider = QStringLiteral("replay");
        QCOMPARE(s.validate(m_tasks, providers()), QStringList());

        NewRunSettings bad = s;
        bad.taskName = QStringLiteral("99_Nope");
        bad.taskFile.clear();
        bad.provider = QStringLiteral("nobody");
        bad.device = QStringLiteral("tpu");
        const QStringList p = bad.validate(m_tasks, providers());
        QCOMPARE(p.size(), 3);
        QVERIFY(containsLike(p, QStringLiteral("“99_Nope” is not in the task library")));
        QVERIFY(containsLike(p, QStringLiteral("“nobody” is not configured")));
        QVERIFY(containsLike(p, QStringLiteral("auto, cpu or cuda (got “tpu”)")));

        NewRunSettings gone = s;
        gone.taskFile = m_dir.filePath(QStringLiteral("deleted.py"));
        QList<Task> tasks = m_tasks;
        tasks[0].path = gone.taskFile;
        QVERIFY(containsLike(gone.validate(tasks, providers()), QStringLiteral("does not exist")));
    }

private:
    QTemporaryDir m_dir;
    QList<Task> m_tasks;
};

QTEST_MAIN(TestNewRunDialog)
#include "tst_newrundialog.moc"

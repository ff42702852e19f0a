// SPDX-License-Identifier: MIT
#include "suite/newsuitedialog.h"

#include "suite/slurmevaluator.h"
#include "suite/suiterunner.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace kwb {

NewSuiteDialog::NewSuiteDialog(const QString &runsDir, QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("New suite"));
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    m_tasks = new QListWidget(this);
    m_tasks->setMinimumHeight(90);
    auto *taskButtons = new QHBoxLayout;
    auto *addFiles = new QPushButton(tr("Add tasks…"), this);
    auto *addFolder = new QPushButton(tr("Add folder…"), this);
    auto *remove = new QPushButton(tr("Remove"), this);
    taskButtons->addWidget(addFiles);
    taskButtons->addWidget(addFolder);
    taskButtons->addWidget(remove);
    taskButtons->addStretch(1);
    auto *taskBox = new QVBoxLayout;
    taskBox->addWidget(m_tasks);
    taskBox->addLayout(taskButtons);
    form->addRow(tr("Tasks and folders"), taskBox);
    m_dir = new QLineEdit(QDir(runsDir).filePath(QStringLiteral("suite-") + QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"))), this);
    form->addRow(tr("Suite folder"), m_dir);
    m_jobs = new QSpinBox(this);
    m_jobs->setRange(1, 256);
    m_jobs->setValue(4);
    form->addRow(tr("Runs at a time"), m_jobs);
    m_gpus = new QLineEdit(QStringLiteral("all"), this);
    m_gpus->setToolTip(tr("GPU lanes: all, or device ids such as 0,1 (one evaluation per GPU at a time)"));
    form->addRow(tr("GPUs"), m_gpus);
    m_backend = new QComboBox(this);
    m_backend->addItems({QStringLiteral("local"), QStringLiteral("slurm")});
    form->addRow(tr("Evaluations run"), m_backend);
    m_partition = new QLineEdit(this);
    m_account = new QLineEdit(this);
    m_time = new QLineEdit(QStringLiteral("00:30:00"), this);
    m_gres = new QLineEdit(QStringLiteral("gpu:1"), this);
    form->addRow(tr("Slurm partition"), m_partition);
    form->addRow(tr("Slurm account"), m_account);
    form->addRow(tr("Slurm time limit"), m_time);
    form->addRow(tr("Slurm gres"), m_gres);
    m_device = new QComboBox(this);
    m_device->addItems({QStringLiteral("auto"), QStringLiteral("cuda"), QStringLiteral("cpu")});
    form->addRow(tr("Device"), m_device);
    m_provider = new QLineEdit(this);
    m_provider->setPlaceholderText(tr("default ($KWB_PROVIDER or deepseek; the shipped cassette without a key)"));
    m_model = new QLineEdit(this);
    m_model->setPlaceholderText(tr("the provider's default"));
    form->addRow(tr("Provider"), m_provider);
    form->addRow(tr("Model"), m_model);
    m_seeds = new QSpinBox(this);
    m_seeds->setRange(1, 16);
    m_seeds->setValue(2);
    m_repairs = new QSpinBox(this);
    m_repairs->setRange(0, 10);
    m_repairs->setValue(3);
    m_stages = new QCheckBox(tr("grid / block / memory stages"), this);
    m_stages->setChecked(true);
    form->addRow(tr("Seeds"), m_seeds);
    form->addRow(tr("Repairs per candidate"), m_repairs);
    form->addRow(QString(), m_stages);
    layout->addLayout(form);
    m_problems = new QLabel(this);
    m_problems->setWordWrap(true);
    m_problems->setObjectName(QStringLiteral("problems"));
    layout->addWidget(m_problems);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Start suite"));
    layout->addWidget(m_buttons);

    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(addFiles, &QPushButton::clicked, this, [this] {
        addTaskPaths(QFileDialog::getOpenFileNames(this, tr("Add tasks"), QString(), tr("KernelBench tasks (*.py)")));
    });
    connect(addFolder, &QPushButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Add a folder of tasks"));
        if (!d.isEmpty())
            addTaskPaths({d});
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        delete m_tasks->currentItem();
        validate();
    });
    auto slurmFields = [this] {
        const bool slurm = m_backend->currentText() == QLatin1String("slurm");
        for (QWidget *w : std::initializer_list<QWidget *>{m_partition, m_account, m_time, m_gres})
            w->setEnabled(slurm);
        m_gpus->setEnabled(!slurm);
        validate();
    };
    connect(m_backend, &QComboBox::currentIndexChanged, this, slurmFields);
    connect(m_dir, &QLineEdit::textChanged, this, &NewSuiteDialog::validate);
    connect(m_gpus, &QLineEdit::textChanged, this, &NewSuiteDialog::validate);
    slurmFields();
}

void NewSuiteDialog::addTaskPaths(const QStringList &paths)
{
    for (const auto &p : paths)
        if (!p.isEmpty() && m_tasks->findItems(p, Qt::MatchExactly).isEmpty())
            m_tasks->addItem(p);
    validate();
}

QStringList NewSuiteDialog::taskPaths() const
{
    QStringList out;
    for (int i = 0; i < m_tasks->count(); ++i)
        out << m_tasks->item(i)->text();
    return out;
}

QStringList NewSuiteDialog::taskFiles(QString *error) const
{
    return suite::collectTasks(taskPaths(), error);
}

suite::SuiteConfig NewSuiteDialog::config() const
{
    suite::SuiteConfig c;
    c.suiteDir = QDir(m_dir->text().trimmed()).absolutePath();
    c.jobs = m_jobs->value();
    c.backend = m_backend->currentText();
    const QString g = m_gpus->text().trimmed();
    c.gpus = g == QLatin1String("all") || g.isEmpty() ? suite::hostGpus() : g.split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (auto &id : c.gpus)
        id = id.trimmed();
    c.slurm.partition = m_partition->text().trimmed();
    c.slurm.account = m_account->text().trimmed();
    c.slurm.timeLimit = m_time->text().trimmed();
    c.slurm.gres = m_gres->text().trimmed();
    c.pipeline.eval.device = m_device->currentText();
    c.pipeline.seeds = m_seeds->value();
    c.pipeline.maxRepairs = m_repairs->value();
    c.pipeline.stages = m_stages->isChecked();
    c.pipeline.gatePolicy = pipeline::GatePolicy::None;
    c.provider.provider = m_provider->text().trimmed();
    c.provider.model = m_model->text().trimmed();
    c.provider.namedProviderFallsBack = true; // as the GUI's New run: a named provider without a key replays
    return c;
}

QStringList NewSuiteDialog::problems() const
{
    QStringList p;
    QString e;
    if (m_tasks->count() == 0)
        p << tr("Add at least one task or folder.");
    else if (taskFiles(&e).isEmpty())
        p << e;
    if (m_dir->text().trimmed().isEmpty())
        p << tr("Choose a suite folder.");
    else if (suite::isSuiteDirectory(m_dir->text().trimmed()))
        p << tr("The suite folder already holds a suite: open it and resume it instead.");
    const QString g = m_gpus->text().trimmed();
    if (g != QLatin1String("all") && !g.isEmpty())
        for (const auto &id : g.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            bool ok = false;
            id.trimmed().toInt(&ok);
            if (!ok) {
                p << tr("GPUs: write all, or device ids such as 0,1.");
                break;
            }
        }
    if (m_backend->currentText() == QLatin1String("slurm") && !suite::SlurmEvaluator::available(&e))
        p << tr("Slurm: %1.").arg(e);
    return p;
}

void NewSuiteDialog::validate()
{
    const QStringList p = problems();
    m_problems->setText(p.join(QLatin1Char('\n')));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(p.isEmpty());
}

} // namespace kwb

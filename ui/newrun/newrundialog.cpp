// SPDX-License-Identifier: MIT
#include "newrun/newrundialog.h"

#include "pipeline/pipeline.h"
#include "tasks/taskindex.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace kwb {

namespace {

constexpr int kMaxSeeds = 8;
constexpr int kMaxTrials = 100;
const QStringList kDevices{QStringLiteral("auto"), QStringLiteral("cpu"), QStringLiteral("cuda")};

double parseTolerance(const QString &text)
{
    bool ok = false;
    const double v = text.trimmed().toDouble(&ok); // C locale: "1e-4", never "1,0e-4"
    return ok ? v : std::nan("");
}

QString tolText(double v)
{
    return QString::number(v, 'g', 6);
}

} // namespace

void NewRunSettings::applyTo(pipeline::PipelineConfig *config) const
{
    config->taskFile = taskFile;
    config->seeds = seeds;
    config->gatePolicy = gatePolicy;
    config->eval.atol = atol;
    config->eval.rtol = rtol;
    config->eval.trials = trials;
    config->eval.device = device;
    config->profile = profile;
}

QJsonObject NewRunSettings::toJson() const
{
    return QJsonObject{{QStringLiteral("task"), taskName},
                       {QStringLiteral("task_file"), taskFile},
                       {QStringLiteral("provider"), provider},
                       {QStringLiteral("model"), model},
                       {QStringLiteral("seeds"), seeds},
                       {QStringLiteral("gate_policy"), pipeline::toName(gatePolicy)},
                       {QStringLiteral("atol"), atol},
                       {QStringLiteral("rtol"), rtol},
                       {QStringLiteral("trials"), trials},
                       {QStringLiteral("device"), device},
                       {QStringLiteral("profile"), profile}};
}

NewRunSettings NewRunSettings::fromJson(const QJsonObject &o)
{
    NewRunSettings s;
    s.taskName = o.value(QStringLiteral("task")).toString();
    s.taskFile = o.value(QStringLiteral("task_file")).toString();
    s.provider = o.value(QStringLiteral("provider")).toString();
    s.model = o.value(QStringLiteral("model")).toString();
    s.seeds = o.value(QStringLiteral("seeds")).toInt(s.seeds);
    s.gatePolicy = pipeline::gatePolicyFromString(o.value(QStringLiteral("gate_policy")).toString()).value_or(s.gatePolicy);
    s.atol = o.value(QStringLiteral("atol")).toDouble(s.atol);
    s.rtol = o.value(QStringLiteral("rtol")).toDouble(s.rtol);
    s.trials = o.value(QStringLiteral("trials")).toInt(s.trials);
    s.device = o.value(QStringLiteral("device")).toString(s.device);
    s.profile = o.value(QStringLiteral("profile")).toBool(s.profile);
    return s;
}

QStringList NewRunSettings::validate(const QList<Task> &tasks, const QList<llm::ProviderConfig> &providers) const
{
    QStringList p;
    if (taskName.isEmpty() && taskFile.isEmpty()) {
        p << QObject::tr("Choose a task.");
    } else {
        const bool known = std::any_of(tasks.begin(), tasks.end(), [this](const Task &t) {
            return t.name == taskName || (!taskFile.isEmpty() && t.path == taskFile);
        });
        if (!known)
            p << QObject::tr("The task “%1” is not in the task library.").arg(taskName.isEmpty() ? taskFile : taskName);
        else if (!taskFile.isEmpty() && !QFileInfo::exists(taskFile))
            p << QObject::tr("The task file %1 does not exist (any more).").arg(taskFile);
    }
    if (provider.isEmpty()) {
        p << QObject::tr("Choose a provider.");
    } else {
        auto it = std::find_if(providers.begin(), providers.end(),
                               [this](const llm::ProviderConfig &c) { return c.name == provider; });
        if (it == providers.end())
            p << QObject::tr("The provider “%1” is not configured.").arg(provider);
        else if (model.trimmed().isEmpty() && it->model.isEmpty())
            p << QObject::tr("The provider “%1” has no default model: enter a model name.").arg(provider);
    }
    if (seeds < 1 || seeds > kMaxSeeds)
        p << QObject::tr("Seeds must be between 1 and %1 (got %2).").arg(kMaxSeeds).arg(seeds);
    if (trials < 1 || trials > kMaxTrials)
        p << QObject::tr("Correctness trials must be between 1 and %1 (got %2).").arg(kMaxTrials).arg(trials);
    auto checkTol = [&p](const char *name, double v) {
        if (!std::isfinite(v) || v < 0)
            p << QObject::tr("%1 must be a number ≥ 0, like 1e-4.").arg(QLatin1String(name));
        else if (v > 1)
            p << QObject::tr("%1 = %2 is above 1: almost any output would pass.").arg(QLatin1String(name), tolText(v));
    };
    checkTol("atol", atol);
    checkTol("rtol", rtol);
    if (atol == 0 && rtol == 0)
        p << QObject::tr("atol and rtol cannot both be 0: no floating-point kernel matches a reference exactly.");
    if (!kDevices.contains(device))
        p << QObject::tr("The device must be auto, cpu or cuda (got “%1”).").arg(device);
    return p;
}

NewRunDialog::NewRunDialog(QWidget *parent)
    : NewRunDialog(TaskIndex(true).tasks(), llm::loadProviders(), parent)
{
}

NewRunDialog::NewRunDialog(const QList<Task> &tasks, const QList<llm::ProviderConfig> &providers, QWidget *parent)
    : QDialog(parent)
    , m_tasks(tasks)
    , m_providers(providers)
{
    setWindowTitle(tr("New run"));
    build();
    setSettings(NewRunSettings{});
}

void NewRunDialog::build()
{
    m_task = new QComboBox(this);
    m_task->setObjectName(QStringLiteral("task"));
    m_task->addItem(tr("(choose a task)"));
    for (const Task &t : m_tasks)
        m_task->addItem(t.level > 0 ? QStringLiteral("L%1  %2  (%3)").arg(t.level).arg(t.name, t.family)
                                    : QStringLiteral("%1  (%2)").arg(t.name, t.family),
                        t.path);
    // Typing filters the list (KernelBench has hundreds of tasks).
    m_taskFilter = new QLineEdit(this);
    m_taskFilter->setObjectName(QStringLiteral("taskFilter"));
    m_taskFilter->setPlaceholderText(tr("filter tasks"));
    m_taskFilter->setClearButtonEnabled(true);
    connect(m_taskFilter, &QLineEdit::textChanged, this, [this](const QString &text) {
        auto *list = qobject_cast<QListView *>(m_task->view());
        int first = -1;
        for (int i = 1; i < m_task->count(); ++i) {
            const bool match = m_task->itemText(i).contains(text, Qt::CaseInsensitive);
            if (list)
                list->setRowHidden(i, !match);
            if (match && first < 0)
                first = i;
        }
        if (first > 0 && !m_task->itemText(m_task->currentIndex()).contains(text, Qt::CaseInsensitive))
            m_task->setCurrentIndex(first);
    });

    m_provider = new QComboBox(this);
    m_provider->setObjectName(QStringLiteral("provider"));
    for (const llm::ProviderConfig &c : m_providers)
        m_provider->addItem(c.name, c.name);
    m_model = new QComboBox(this);
    m_model->setObjectName(QStringLiteral("model"));
    m_model->setEditable(true);
    m_keyNote = new QLabel(this);
    m_keyNote->setObjectName(QStringLiteral("keyNote"));
    m_keyNote->setWordWrap(true);

    m_seeds = new QSpinBox(this);
    m_seeds->setObjectName(QStringLiteral("seeds"));
    m_seeds->setRange(0, 99); // validate() gives the message; the spin box does not clamp silently
    m_gates = new QComboBox(this);
    m_gates->setObjectName(QStringLiteral("gates"));
    m_gates->addItem(tr("at every step (all)"), int(pipeline::GatePolicy::All));
    m_gates->addItem(tr("after failures only"), int(pipeline::GatePolicy::Failures));
    m_gates->addItem(tr("never: fully automatic (none)"), int(pipeline::GatePolicy::None));
    m_atol = new QLineEdit(this);
    m_atol->setObjectName(QStringLiteral("atol"));
    m_rtol = new QLineEdit(this);
    m_rtol->setObjectName(QStringLiteral("rtol"));
    m_trials = new QSpinBox(this);
    m_trials->setObjectName(QStringLiteral("trials"));
    m_trials->setRange(0, 999);
    m_device = new QComboBox(this);
    m_device->setObjectName(QStringLiteral("device"));
    for (const QString &d : kDevices)
        m_device->addItem(d, d);
    m_profile = new QCheckBox(tr("Profile each analysed kernel with Nsight Compute"), this);
    m_profile->setObjectName(QStringLiteral("profile"));
    m_profile->setToolTip(tr("Before each algorithm analysis, the candidate is profiled once on this machine's GPU "
                             "(ncu, at most 64 kernel launches and 180 s) and its metrics and roofline go into the prompt. "
                             "Without a GPU or ncu the prompt says why in one line."));

    m_problems = new QLabel(this);
    m_problems->setObjectName(QStringLiteral("problems"));
    m_problems->setWordWrap(true);
    m_problems->setTextFormat(Qt::PlainText);
    QPalette pal = m_problems->palette();
    pal.setColor(QPalette::WindowText, QColor(0xc0, 0x30, 0x30));
    m_problems->setPalette(pal);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Start run"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &NewRunDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &NewRunDialog::reject);

    auto *form = new QFormLayout;
    form->addRow(tr("&Task"), m_task);
    form->addRow(QString(), m_taskFilter);
    form->addRow(tr("&Provider"), m_provider);
    form->addRow(tr("&Model"), m_model);
    form->addRow(QString(), m_keyNote);
    form->addRow(tr("&Seeds"), m_seeds);
    form->addRow(tr("&Gates"), m_gates);
    form->addRow(tr("&atol"), m_atol);
    form->addRow(tr("&rtol"), m_rtol);
    form->addRow(tr("Correctness t&rials"), m_trials);
    form->addRow(tr("&Device"), m_device);
    form->addRow(tr("Pro&filing"), m_profile);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problems);
    layout->addWidget(m_buttons);

    connect(m_provider, &QComboBox::currentIndexChanged, this, &NewRunDialog::onProviderChanged);
    for (QComboBox *c : {m_task, m_gates, m_device})
        connect(c, &QComboBox::currentIndexChanged, this, &NewRunDialog::updateValidation);
    connect(m_model, &QComboBox::currentTextChanged, this, &NewRunDialog::updateValidation);
    for (QLineEdit *e : {m_atol, m_rtol})
        connect(e, &QLineEdit::textChanged, this, &NewRunDialog::updateValidation);
    for (QSpinBox *s : {m_seeds, m_trials})
        connect(s, &QSpinBox::valueChanged, this, &NewRunDialog::updateValidation);
}

void NewRunDialog::onProviderChanged()
{
    const int i = m_provider->currentIndex();
    m_model->clear();
    if (i >= 0 && i < m_providers.size()) {
        const llm::ProviderConfig &c = m_providers.at(i);
        if (!c.model.isEmpty())
            m_model->addItem(c.model);
        m_keyNote->setText(llm::hasApiKey(c) ? QString()
                                             : tr("No API key found in $%1 or keys.json: the run will stop at "
                                                  "the first LLM call.")
                                                   .arg(c.apiKeyEnv));
    }
    updateValidation();
}

void NewRunDialog::setSettings(const NewRunSettings &s)
{
    int task = 0;
    for (int i = 0; i < m_tasks.size(); ++i)
        if (m_tasks.at(i).name == s.taskName || (!s.taskFile.isEmpty() && m_tasks.at(i).path == s.taskFile))
            task = i + 1;
    m_task->setCurrentIndex(task);
    const int provider = m_provider->findData(s.provider);
    m_provider->setCurrentIndex(provider >= 0 ? provider : (m_provider->count() ? 0 : -1));
    onProviderChanged();
    if (!s.model.isEmpty())
        m_model->setCurrentText(s.model);
    m_seeds->setValue(s.seeds);
    m_gates->setCurrentIndex(std::max(0, m_gates->findData(int(s.gatePolicy))));
    m_atol->setText(tolText(s.atol));
    m_rtol->setText(tolText(s.rtol));
    m_trials->setValue(s.trials);
    m_device->setCurrentIndex(std::max(0, m_device->findData(s.device)));
    m_profile->setChecked(s.profile);
    updateValidation();
}

NewRunSettings NewRunDialog::settings() const
{
    NewRunSettings s;
    const int task = m_task->currentIndex() - 1;
    if (task >= 0 && task < m_tasks.size()) {
        s.taskName = m_tasks.at(task).name;
        s.taskFile = m_tasks.at(task).path;
    }
    s.provider = m_provider->currentData().toString();
    s.model = m_model->currentText().trimmed();
    s.seeds = m_seeds->value();
    s.gatePolicy = static_cast<pipeline::GatePolicy>(m_gates->currentData().toInt());
    s.atol = parseTolerance(m_atol->text());
    s.rtol = parseTolerance(m_rtol->text());
    s.trials = m_trials->value();
    s.device = m_device->currentData().toString();
    s.profile = m_profile->isChecked();
    return s;
}

QStringList NewRunDialog::problems() const
{
    return settings().validate(m_tasks, m_providers);
}

void NewRunDialog::updateValidation()
{
    if (!m_buttons)
        return;
    const QStringList p = problems();
    m_problems->setText(p.join(u'\n'));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(p.isEmpty());
}

void NewRunDialog::accept()
{
    updateValidation();
    if (!problems().isEmpty())
        return; // the problems are on screen; the dialog stays open
    QDialog::accept();
}

std::optional<NewRunSettings> NewRunDialog::ask(QWidget *parent, const NewRunSettings &initial)
{
    NewRunDialog d(parent);
    d.setSettings(initial);
    if (d.exec() != QDialog::Accepted)
        return std::nullopt;
    return d.settings();
}

} // namespace kwb

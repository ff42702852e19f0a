// SPDX-License-Identifier: MIT
#pragma once

#include "llm/providerconfig.h"
#include "pipeline/gate.h"
#include "tasks/task.h"

#include <QDialog>
#include <QJsonObject>
#include <QList>
#include <QStringList>

#include <optional>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace kwb::pipeline {
struct PipelineConfig;
}

namespace kwb {

/// What a person chose for a new run: plain data, checked by validate().
struct NewRunSettings {
    QString taskName; ///< as in the task index, e.g. "39_GRU"
    QString taskFile; ///< its path
    QString provider; ///< a provider name from the provider list
    QString model; ///< empty: the provider's default model
    int seeds = 2;
    pipeline::GatePolicy gatePolicy = pipeline::GatePolicy::Failures;
    double atol = 1e-4;
    double rtol = 1e-4;
    int trials = 5;
    QString device = QStringLiteral("auto"); ///< "auto", "cpu" or "cuda"
    bool profile = true; ///< Nsight Compute profile of each analysed candidate (needs a GPU and ncu)

    /// The settings into a pipeline configuration (task, seeds, gates, tolerances, trials, device).
    void applyTo(pipeline::PipelineConfig *config) const;
    /// For RunInfo::settings and QSettings ("last choices").
    QJsonObject toJson() const;
    static NewRunSettings fromJson(const QJsonObject &o);

    /// Every problem, one clear sentence each; empty when the settings can start a run.
    /// `tasks` / `providers` are what the dialog offers (a name must be one of them).
    QStringList validate(const QList<Task> &tasks, const QList<llm::ProviderConfig> &providers) const;
};

/// The New-run dialog: a task from the task index, provider and model, seeds, gate policy
/// (all / failures / none), atol / rtol, trials and device. OK stays disabled while validate()
/// finds problems, which are listed under the form; a missing API key is a warning only.
class NewRunDialog : public QDialog
{
    Q_OBJECT
public:
    /// Offers the shipped task index (TaskIndex(true)) and llm::loadProviders().
    explicit NewRunDialog(QWidget *parent = nullptr);
    NewRunDialog(const QList<Task> &tasks, const QList<llm::ProviderConfig> &providers, QWidget *parent = nullptr);

    void setSettings(const NewRunSettings &s);
    NewRunSettings settings() const;
    /// What validate() says about the current form.
    QStringList problems() const;

    /// The run's settings when the person pressed OK, or nullopt when cancelled.
    static std::optional<NewRunSettings> ask(QWidget *parent, const NewRunSettings &initial = {});

public slots:
    void accept() override;

private:
    void build();
    void onProviderChanged();
    void updateValidation();

    QList<Task> m_tasks;
    QList<llm::ProviderConfig> m_providers;
    QComboBox *m_task = nullptr;
    QLineEdit *m_taskFilter = nullptr;
    QComboBox *m_provider = nullptr;
    QComboBox *m_model = nullptr;
    QSpinBox *m_seeds = nullptr;
    QComboBox *m_gates = nullptr;
    QLineEdit *m_atol = nullptr; // text: tolerances are written as 1e-4
    QLineEdit *m_rtol = nullptr;
    QSpinBox *m_trials = nullptr;
    QComboBox *m_device = nullptr;
    QCheckBox *m_profile = nullptr;
    QLabel *m_problems = nullptr;
    QLabel *m_keyNote = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
};

} // namespace kwb

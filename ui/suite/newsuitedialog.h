// SPDX-License-Identifier: MIT
#pragma once

#include <QStringList>

// Forward declarations only: the pipeline header must not reach kwb_ui's moc files (its
// Q_DECLARE_METATYPEs would come after their use there).
namespace kwb::suite {
class SuiteRunner;
struct SuiteConfig;
}

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QSpinBox;

namespace kwb {

/// New suite: tasks and folders (scanned recursively), the suite folder, runs at a time, GPU lanes,
/// backend (local or Slurm with partition, account, time limit, gres), device, provider and model,
/// seeds, repairs, stages. OK stays disabled while problems() is not empty.
class NewSuiteDialog : public QDialog
{
    Q_OBJECT
public:
    explicit NewSuiteDialog(const QString &runsDir, QWidget *parent = nullptr);

    void addTaskPaths(const QStringList &paths);
    QStringList taskPaths() const;
    /// The suite as chosen (suiteDir, pipeline, provider, jobs, lanes, backend, Slurm).
    suite::SuiteConfig config() const;
    /// The task files the chosen paths expand to, or empty with `error`.
    QStringList taskFiles(QString *error = nullptr) const;
    /// Every problem, one sentence each; empty when the suite can start.
    QStringList problems() const;

private:
    void validate();

    QListWidget *m_tasks = nullptr;
    QLineEdit *m_dir = nullptr;
    QSpinBox *m_jobs = nullptr;
    QLineEdit *m_gpus = nullptr;
    QComboBox *m_backend = nullptr;
    QLineEdit *m_partition = nullptr;
    QLineEdit *m_account = nullptr;
    QLineEdit *m_time = nullptr;
    QLineEdit *m_gres = nullptr;
    QComboBox *m_device = nullptr;
    QLineEdit *m_provider = nullptr;
    QLineEdit *m_model = nullptr;
    QSpinBox *m_seeds = nullptr;
    QSpinBox *m_repairs = nullptr;
    QCheckBox *m_stages = nullptr;
    QLabel *m_problems = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
};

} // namespace kwb

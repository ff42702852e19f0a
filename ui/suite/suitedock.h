// SPDX-License-Identifier: MIT
#pragma once

#include <QStringList>

// Forward declarations only: the pipeline header must not reach kwb_ui's moc files (its
// Q_DECLARE_METATYPEs would come after their use there).
namespace kwb::suite {
class SuiteRunner;
struct SuiteConfig;
}
namespace kwb::pipeline {
class Pipeline;
}

#include <QPointer>
#include <QWidget>

class QComboBox;
class QFileSystemWatcher;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace kwb {

class MainWindow;
class SuiteModel;
class SuiteFilterModel;

/// The Suite view: one row per task of a suite, sortable and filterable (failing only, flagged,
/// text), live while the suite runs, whether it runs here (a SuiteRunner this widget owns) or in a
/// `kwb suite` process (suite.json is watched). Activating a row asks for that run in the run views.
class SuiteDock : public QWidget
{
    Q_OBJECT
public:
    explicit SuiteDock(QWidget *parent = nullptr);
    ~SuiteDock() override;

    /// Adds the Suite view to `window` as a dock (tabbed with the latency chart; hidden until a suite
    /// is opened or started): rows open their run in the window's run views.
    static SuiteDock *install(MainWindow *window);

    /// File > New suite…: the dialog (window-modal, non-blocking), then startSuite().
    void newSuiteDialog(const QStringList &paths = {});
    /// File > Open suite…: a folder chooser, then openSuite().
    void openSuiteDialog();

    /// Shows the suite in `dir` and follows its suite.json; false with `error` when it is not one.
    bool openSuite(const QString &dir, QString *error = nullptr);
    /// Starts a new suite here (or resumes the one in config.suiteDir when `taskFiles` is empty).
    bool startSuite(const suite::SuiteConfig &config, const QStringList &taskFiles, QString *error = nullptr);
    /// The pipeline running `runDir` in this dock's suite now, or null.
    pipeline::Pipeline *livePipeline(const QString &runDir) const;
    /// Opens the run of row `row` of the view as it is sorted and filtered (emits runActivated).
    void openRow(int row);
    /// Stops a suite running here after each run's current step.
    void stopSuite();
    /// Writes the suite report (HTML and Markdown) next to suite.json; the paths, or an error.
    QStringList exportReport(QString *error = nullptr);

    QString suiteDirectory() const { return m_dir; }
    SuiteModel *model() const { return m_model; }
    SuiteFilterModel *filterModel() const { return m_filter; }
    QTableView *table() const { return m_table; }
    suite::SuiteRunner *runner() const { return m_runner; }
    /// The "done / running / failing" line above the table.
    QString progressText() const;

Q_SIGNALS:
    /// A row was activated: show this run directory in the run views.
    void runActivated(const QString &runDir);
    /// The buttons (the main window shows its dialogs).
    void newSuiteRequested();
    void openSuiteRequested();
    void suiteOpened(const QString &dir);
    void suiteFinished();

private:
    void reload();
    void updateProgress();
    void onActivated(const QModelIndex &index);

    SuiteModel *m_model = nullptr;
    SuiteFilterModel *m_filter = nullptr;
    QTableView *m_table = nullptr;
    QComboBox *m_show = nullptr;
    QLineEdit *m_text = nullptr;
    QLabel *m_progress = nullptr;
    QPushButton *m_stop = nullptr;
    QPushButton *m_resume = nullptr;
    QPushButton *m_export = nullptr;
    QFileSystemWatcher *m_watcher = nullptr;
    suite::SuiteRunner *m_runner = nullptr; // owned (child)
    QString m_dir;
};

} // namespace kwb

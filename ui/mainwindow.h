// SPDX-License-Identifier: MIT
#pragma once

#include "model/run.h"
#include "newrun/newrundialog.h"
#include "pipeline/gate.h"
#include "theme.h"

#include <QMainWindow>
#include <QPointer>

#include <optional>

class QAction;
class QDockWidget;
class QLabel;
class QProgressBar;

namespace kwb {

class CandidateTreeModel;
class CandidateTreeView;
class CodeView;
class DiffView;
class ElidedLabel;
class EvalDetailsView;
class ExchangeView;
class GateBar;
class GpuStatusWidget;
class LatencyChart;
class ProfileView;
class RunController;
class RunLoader;
class RunsDock;
class SuiteDock;
class VerdictsView;

/// The workbench window: the candidate tree drives the code, verdicts and LLM-exchange views; the
/// gate bar answers a waiting engine. Layout, column widths, theme and the last run are remembered
/// (QSettings). Runs load off the UI thread. A live engine is attached with attachPipeline().
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Opens a run directory asynchronously: runOpened() or runOpenFailed() follows. A failure shows
    /// the store's error and leaves the window as it was.
    void openRun(const QString &dir);
    /// Opens the bundled demo run (resources/demo); false (with a message) when it is not installed.
    bool openDemo();
    /// The run directory on display (empty before the first run opened).
    QString runDirectory() const { return m_runDir; }
    /// The run as last loaded and updated since (empty before the first run opened).
    const Run &run() const;
    /// The last run opened in an earlier session (QSettings), or empty.
    static QString lastRunDirectory();
    /// Where the bundled demo run is, or empty (with `why`) when it is not there.
    static QString demoRunDirectory(QString *why = nullptr);

    /// Shows or hides the message boxes (tests and --screenshot runs turn them off; errors then go to
    /// the status bar and the signals only).
    void setInteractive(bool interactive) { m_interactive = interactive; }
    void setTheme(theme::Theme t);
    /// Every action with a shortcut (the help dialog lists these).
    QList<QAction *> shortcutActions() const;

    CandidateTreeModel *candidateModel() const { return m_model; }
    CandidateTreeView *candidateView() const { return m_tree; }
    CodeView *codeView() const { return m_code; }
    VerdictsView *verdictsView() const { return m_verdicts; }
    EvalDetailsView *evalDetailsView() const { return m_evalDetails; }
    ExchangeView *exchangeView() const { return m_exchange; }
    GateBar *gateBar() const { return m_gateBar; }
    RunsDock *runsDock() const { return m_runs; }
    SuiteDock *suiteDock() const { return m_suite; }
    DiffView *diffView() const { return m_diff; }
    LatencyChart *latencyChart() const { return m_chart; }
    ProfileView *profileView() const { return m_profile; }
    GpuStatusWidget *gpuStatus() const { return m_gpu; }
    /// Owns the live run (provider, evaluator, pipeline); made on first use.
    RunController *runController();
    /// The dock that holds `w` (one of the views above), or null.
    QDockWidget *dockOf(QWidget *w) const;

    /// Starts a live run with these settings in the runs folder of the runs dock and attaches it to
    /// every view; false (with a message, and `error`) when it cannot start.
    bool startRun(const NewRunSettings &settings, QString *error = nullptr);
    /// File > New run…: the dialog (window-modal, non-blocking), then startRun().
    void newRunDialog(const NewRunSettings &initial = {});
    /// The settings of "Replay demo on this machine": 1_ReLU (runs on any CPU) with the replay
    /// provider, or the demo run's task when this machine has an NVIDIA GPU and a cassette for it.
    NewRunSettings demoReplaySettings() const;
    /// Replays the demo live: asks first (the New-run dialog, prefilled) when `ask`.
    void replayDemo(bool ask = true);
    /// Stops the live run (after the current step; the evaluation in flight is cancelled).
    void stopRun();
    /// Opens the diff dock on the prompts of two LLM calls of the run.
    void comparePrompts(const QString &leftExchangeId, const QString &rightExchangeId);

    /// Connects a live engine (core/pipeline's Pipeline, or anything with its signals and
    /// submitDecision slot): candidates, LLM streams and gates flow in, gate decisions flow out.
    /// A template so that kwb_ui does not have to link the pipeline library.
    template<typename Pipeline>
    void attachPipeline(Pipeline *p, const QString &runDir);

public slots:
    void selectCandidate(const QString &id);
    // Live updates, from a running pipeline.
    void onCandidateAdded(const kwb::Candidate &c);
    void onCandidateUpdated(const kwb::Candidate &c);
    void onExchangeStarted(const kwb::LlmExchange &x);
    void onExchangeDelta(const QString &exchangeId, const QString &text);
    void onExchangeFinished(const kwb::LlmExchange &x);
    void onGateOpened(const kwb::pipeline::GateRequest &request);
    void onRunFinished(kwb::RunState state);

signals:
    void runOpened(const QString &dir);
    void runOpenFailed(const QString &dir, const QString &error);
    /// The candidate every view shows (empty: none).
    void candidateSelected(const QString &id);
    void gateDecided(const kwb::pipeline::GateDecision &decision);

protected:
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void createViews();
    void createDocks();
    /// First-start dock sizes from the window's size (restoreState() replaces them later).
    void applyDefaultLayout();
    void createMenus();
    void connectViews();
    void restoreSettings();
    void saveSettings() const;
    QAction *addAction(QMenu *menu, const QString &text, const QKeySequence &key, const std::function<void()> &fn);

    void onOpenRunDialog();
    void onRunLoaded(const QString &dir, const Run &run, const QStringList &warnings, qint64 elapsedMs);
    void onRunFailed(const QString &dir, const QString &error);
    void onCandidateSelected(const QString &id);
    void showCandidateDetails(const Candidate *c, bool reloadCode);
    LlmExchange withBody(const LlmExchange &x);
    void showShortcuts();
    void clickGate(pipeline::GateAction action);
    void updateRunSummary();
    void refreshLiveViews();
    /// True when the run on display is the attached pipeline's (or none is attached).
    bool showsLiveRun() const;
    void onRunStarted(const QString &runDir);
    void onRunProgress(const QString &text);
    void chooseExchangeToDiff();
    void exportChart();
    void showError(const QString &title, const QString &text);

    CandidateTreeModel *m_model = nullptr;
    CandidateTreeView *m_tree = nullptr;
    CodeView *m_code = nullptr;
    VerdictsView *m_verdicts = nullptr;
    EvalDetailsView *m_evalDetails = nullptr;
    ExchangeView *m_exchange = nullptr;
    GateBar *m_gateBar = nullptr;
    RunsDock *m_runs = nullptr;
    SuiteDock *m_suite = nullptr;
    RunLoader *m_loader = nullptr;
    DiffView *m_diff = nullptr;
    LatencyChart *m_chart = nullptr;
    ProfileView *m_profile = nullptr;
    GpuStatusWidget *m_gpu = nullptr;
    RunController *m_controller = nullptr;
    QAction *m_stopAction = nullptr;
    QLabel *m_runProgress = nullptr; ///< step and phase of the live run
    QLabel *m_providerNote = nullptr; ///< e.g. "replay of an authored cassette"
    bool m_live = false; ///< a pipeline is attached and running
    /// The attached pipeline's run directory: its signals update the views only while that run is on display.
    QString m_liveDir;
    std::optional<pipeline::GateRequest> m_pendingGate; ///< a live gate opened while another run was shown
    QList<QDockWidget *> m_docks;
    QList<QAction *> m_actions;
    QHash<int, QAction *> m_gateActions;
    QAction *m_darkAction = nullptr;
    ElidedLabel *m_summary = nullptr;
    QProgressBar *m_progress = nullptr;
    QString m_runDir;
    QString m_selected;
    QHash<QString, LlmExchange> m_bodies; ///< exchange texts read from llm/<id>.json, by id
    bool m_interactive = true;
    bool m_defaultLayoutPending = false; ///< no saved layout: size the docks once the window has its size
};

template<typename Pipeline>
void MainWindow::attachPipeline(Pipeline *p, const QString &runDir)
{
    m_runDir = runDir;
    m_liveDir = runDir;
    onRunLoaded(runDir, p->run(), {}, 0);
    connect(p, &Pipeline::candidateAdded, this, &MainWindow::onCandidateAdded);
    connect(p, &Pipeline::candidateUpdated, this, &MainWindow::onCandidateUpdated);
    connect(p, &Pipeline::exchangeStarted, this, &MainWindow::onExchangeStarted);
    connect(p, &Pipeline::exchangeDelta, this, &MainWindow::onExchangeDelta);
    connect(p, &Pipeline::exchangeFinished, this, &MainWindow::onExchangeFinished);
    connect(p, &Pipeline::gateOpened, this, &MainWindow::onGateOpened);
    connect(p, &Pipeline::finished, this, &MainWindow::onRunFinished);
    QPointer<Pipeline> guard(p);
    connect(this, &MainWindow::gateDecided, p, [guard](const pipeline::GateDecision &d) {
        if (guard)
            guard->submitDecision(d);
    });
}

} // namespace kwb

// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "candidatetreemodel.h"
#include "candidatetreeview.h"
#include "chart/latencychart.h"
#include "codeview.h"
#include "diff/diffview.h"
#include "env/locations.h"
#include "evaldetailsview.h"
#include "exchangeview.h"
#include "gatebar.h"
#include "gpu/gpustatuswidget.h"
#include "elidedlabel.h"
#include "icons.h"
#include "speedup.h"
#include "pipeline/cassettes.h"
#include "pipeline/pipeline.h"
#include "profile/profileview.h"
#include "report/reportexport.h"
#include "runcontroller.h"
#include "runloader.h"
#include "runsdock.h"
#include "shortcutsdialog.h"
#include "store/runstore.h"
#include "suite/suitedock.h"
#include "tasks/taskindex.h"
#include "verdictsview.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QToolBar>
#include <QTreeView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>

namespace kwb {

namespace {
const QString kGeometry = QStringLiteral("window/geometry");
const QString kState = QStringLiteral("window/state");
const QString kHeader = QStringLiteral("candidates/header");
const QString kRunsSplitter = QStringLiteral("runs/splitter");
const QString kTheme = QStringLiteral("theme");
const QString kLastRun = QStringLiteral("lastRun");
const QString kRecentRuns = QStringLiteral("recentRuns");
const QString kLastNewRun = QStringLiteral("newRun/last");
constexpr int kStateVersion = 3; // 2: the diff and latency docks and the run toolbar; 3: the evaluation dock
} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
{
    setWindowTitle(tr("Kernel Workbench"));
    setWindowIcon(icons::appIcon());
    createViews();
    createDocks();
    createMenus();
    connectViews();
    restoreSettings();
    m_runs->refresh();
}

MainWindow::~MainWindow() = default;

void MainWindow::createViews()
{
    m_model = new CandidateTreeModel(this);
    m_tree = new CandidateTreeView(m_model, this);
    m_code = new CodeView(this);
    m_verdicts = new VerdictsView(this);
    m_evalDetails = new EvalDetailsView(this);
    m_exchange = new ExchangeView(this);
    m_gateBar = new GateBar(this);
    m_runs = new RunsDock(this);
    m_loader = new RunLoader(this);
    m_diff = new DiffView(this);
    m_chart = new LatencyChart(this);
    m_chart->setMinimumHeight(220); // below that the axis labels collapse to "…"
    m_profile = new ProfileView(this);

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addWidget(m_gateBar);
    layout->addWidget(m_code, 1);
    // The gate bar's rows of buttons and its re-prompt box need this much; the docks give way first.
    central->setMinimumWidth(460);
    setCentralWidget(central);

    m_summary = new ElidedLabel(this);
    m_summary->setObjectName(QStringLiteral("runSummary"));
    m_summary->setFullText(tr("No run open"));
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 0); // busy indicator: the store does not report partial progress
    m_progress->setMaximumWidth(160);
    m_progress->hide();
    m_runProgress = new QLabel(this);
    m_runProgress->setObjectName(QStringLiteral("runProgress"));
    m_runProgress->hide();
    m_providerNote = new QLabel(this);
    m_providerNote->setObjectName(QStringLiteral("providerNote"));
    m_providerNote->hide();
    m_gpu = new GpuStatusWidget(this);
    statusBar()->addWidget(m_summary, 1);
    statusBar()->addPermanentWidget(m_providerNote);
    statusBar()->addPermanentWidget(m_runProgress);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_gpu);
}

void MainWindow::createDocks()
{
    auto dock = [this](QWidget *w, const QString &title, const QString &name, Qt::DockWidgetArea area) {
        auto *d = new QDockWidget(title, this);
        d->setObjectName(name); // saveState() finds docks by name
        d->setWidget(w);
        addDockWidget(area, d);
        m_docks.append(d);
        return d;
    };
    auto *runs = dock(m_runs, tr("Runs and tasks"), QStringLiteral("dockRuns"), Qt::LeftDockWidgetArea);
    auto *cands = dock(m_tree, tr("Candidates"), QStringLiteral("dockCandidates"), Qt::LeftDockWidgetArea);
    auto *verdicts = dock(m_verdicts, tr("Verdicts"), QStringLiteral("dockVerdicts"), Qt::RightDockWidgetArea);
    auto *llm = dock(m_exchange, tr("LLM exchange"), QStringLiteral("dockExchange"), Qt::RightDockWidgetArea);
    auto *latency = dock(m_chart, tr("Latency"), QStringLiteral("dockLatency"), Qt::BottomDockWidgetArea);
    auto *diff = dock(m_diff, tr("Diff"), QStringLiteral("dockDiff"), Qt::BottomDockWidgetArea);
    // Last, so the docks before keep their Alt+number shortcuts.
    auto *evaluation = dock(m_evalDetails, tr("Evaluation"), QStringLiteral("dockEvaluation"), Qt::RightDockWidgetArea);
    auto *profile = dock(m_profile, tr("Profile"), QStringLiteral("dockProfile"), Qt::BottomDockWidgetArea);
    splitDockWidget(runs, cands, Qt::Vertical);
    splitDockWidget(verdicts, llm, Qt::Vertical);
    // One candidate's evaluation (status, errors, timings, memory, checks, log) beside its verdicts.
    tabifyDockWidget(verdicts, evaluation);
    evaluation->raise();
    // The chart and the diff share the space under the code: one look at a time, both one click away.
    tabifyDockWidget(latency, diff);
    tabifyDockWidget(latency, profile);
    latency->raise();
    m_suite = SuiteDock::install(this);
}

void MainWindow::applyDefaultLayout()
{
    // Proportions of the window, so that 1280x720 and 1920x1080 both show every view with its text.
    QDockWidget *runs = dockOf(m_runs);
    QDockWidget *cands = dockOf(m_tree);
    QDockWidget *evaluation = dockOf(m_evalDetails);
    QDockWidget *llm = dockOf(m_exchange);
    QDockWidget *latency = dockOf(m_chart);
    if (!runs || !cands || !evaluation || !llm || !latency)
        return;
    const QSize s = size();
    const int left = std::clamp(int(s.width() * 0.38), 400, 700);
    const int right = std::clamp(int(s.width() * 0.25), 320, 540);
    const int bottom = std::clamp(int(s.height() * 0.31), 210, 340);
    const int top = s.height() - bottom - 100; // menu, tool bar, status bar
    if (s.height() < 900) {
        // Too short for both: the runs and tasks one tab away from the candidates, each at full height.
        tabifyDockWidget(runs, cands);
        cands->raise();
    } else {
        resizeDocks({runs, cands}, {top / 2, top / 2}, Qt::Vertical);
    }
    resizeDocks({cands, evaluation}, {left, right}, Qt::Horizontal);
    resizeDocks({latency}, {bottom}, Qt::Vertical);
    resizeDocks({evaluation, llm}, {top * 55 / 100, top * 45 / 100}, Qt::Vertical);
}

QAction *MainWindow::addAction(QMenu *menu, const QString &text, const QKeySequence &key,
                               const std::function<void()> &fn)
{
    auto *a = new QAction(text, this);
    if (!key.isEmpty())
        a->setShortcut(key);
    connect(a, &QAction::triggered, this, fn);
    if (menu)
        menu->addAction(a);
    m_actions.append(a);
    return a;
}

void MainWindow::createMenus()
{
    using pipeline::GateAction;
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *newRun = addAction(file, tr("&New run…"), QKeySequence::New, [this] { newRunDialog(); });
    QAction *replay = addAction(file, tr("Re&play demo on this machine"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N),
                                [this] { replayDemo(m_interactive); });
    replay->setToolTip(tr("Run the optimization loop live here, with the replay of an authored cassette "
                          "(1_ReLU on any CPU), and answer its gates"));
    m_stopAction = addAction(file, tr("S&top live run"), QKeySequence(Qt::SHIFT | Qt::Key_F5), [this] { stopRun(); });
    m_stopAction->setToolTip(tr("Stop the live run after the current step and cancel the evaluation in flight"));
    m_stopAction->setEnabled(false);
    file->addSeparator();
    addAction(file, tr("&Open run…"), QKeySequence::Open, [this] { onOpenRunDialog(); });
    addAction(file, tr("New s&uite…"), {}, [this] { m_suite->newSuiteDialog(); });
    addAction(file, tr("Open su&ite…"), {}, [this] { m_suite->openSuiteDialog(); });
    addAction(file, tr("Open &demo run"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), [this] { openDemo(); });
    addAction(file, tr("&Reload run"), QKeySequence(Qt::Key_F5), [this] {
        if (!m_runDir.isEmpty())
            openRun(m_runDir);
    });
    addAction(file, tr("Refresh runs and &tasks"), QKeySequence(Qt::CTRL | Qt::Key_R), [this] { m_runs->refresh(); });
    file->addSeparator();
    addAction(file, tr("&Export report…"), QKeySequence(Qt::CTRL | Qt::Key_E), [this] {
        if (run().info.id.isEmpty() && run().candidates.isEmpty())
            return showError(tr("No run"), tr("Open a run first."));
        exportReportInteractive(this, run(), m_chart);
    });
    addAction(file, tr("Export &chart…"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_E), [this] { exportChart(); });
    file->addSeparator();
    addAction(file, tr("&Quit"), QKeySequence::Quit, [this] { close(); });

    QMenu *view = menuBar()->addMenu(tr("&View"));
    addAction(view, tr("&Filter candidates"), QKeySequence::Find, [this] { m_tree->focusFilter(); });
    addAction(view, tr("Go to &best candidate"), QKeySequence(Qt::CTRL | Qt::Key_B), [this] {
        selectCandidate(m_model->bestId());
    });
    addAction(view, tr("Go to &parent candidate"), QKeySequence(Qt::ALT | Qt::Key_Left), [this] {
        // Not Alt+Up: that is the diff view's "previous change", and one key on two actions fires neither.
        if (const Candidate *c = run().candidate(m_selected); c && !c->parentId.isEmpty())
            selectCandidate(c->parentId);
    });
    addAction(view, tr("&Next verdict"), QKeySequence(Qt::Key_F8), [this] { m_verdicts->activateNext(+1); });
    addAction(view, tr("Pre&vious verdict"), QKeySequence(Qt::SHIFT | Qt::Key_F8), [this] { m_verdicts->activateNext(-1); });
    addAction(view, tr("Focus &candidate tree"), QKeySequence(Qt::CTRL | Qt::Key_1), [this] {
        m_tree->treeView()->setFocus();
    });
    addAction(view, tr("Focus c&ode"), QKeySequence(Qt::CTRL | Qt::Key_2), [this] { m_code->setFocus(); });
    addAction(view, tr("D&iff with parent"), QKeySequence(Qt::CTRL | Qt::Key_D), [this] {
        if (QDockWidget *d = dockOf(m_diff)) {
            d->show();
            d->raise();
        }
        m_diff->setCurrentCandidate(m_selected);
        if (!m_diff->applyQuickPick(DiffView::QuickPick::ParentToChild))
            statusBar()->showMessage(tr("The selected candidate has no parent to diff with"), 5000);
    });
    addAction(view, tr("Diff this LLM &prompt with…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L),
              [this] { chooseExchangeToDiff(); });
    view->addSeparator();
    m_darkAction = addAction(view, tr("&Dark theme"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T), [this] {
        setTheme(m_darkAction->isChecked() ? theme::Theme::Dark : theme::Theme::Light);
    });
    m_darkAction->setCheckable(true);
    view->addSeparator();
    int n = 1;
    for (QDockWidget *d : m_docks) {
        QAction *toggle = d->toggleViewAction();
        toggle->setShortcut(QKeySequence(Qt::ALT | Qt::Key(Qt::Key_0 + n++)));
        view->addAction(toggle);
        m_actions.append(toggle);
    }

    QMenu *gate = menuBar()->addMenu(tr("&Gate"));
    auto gateAction = [&](GateAction a, const QString &text, const QKeySequence &key) {
        QAction *act = addAction(gate, text, key, [this, a] { clickGate(a); });
        act->setEnabled(false);
        m_gateActions.insert(int(a), act);
    };
    gateAction(GateAction::Approve, tr("&Approve"), QKeySequence(Qt::CTRL | Qt::Key_Return));
    gateAction(GateAction::EditPrompt, tr("Edit &prompt…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    gateAction(GateAction::EditCode, tr("Edit / submit &code"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    gateAction(GateAction::Reprompt, tr("&Re-prompt"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    gateAction(GateAction::Skip, tr("S&kip stage"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    gateAction(GateAction::UseAsBase, tr("Use selection as &base"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    gateAction(GateAction::Override, tr("&Override integrity…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    gateAction(GateAction::Stop, tr("&Stop run"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_X));

    QToolBar *bar = addToolBar(tr("Run"));
    bar->setObjectName(QStringLiteral("toolbarRun")); // saveState() finds tool bars by name
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(newRun);
    bar->addAction(replay);
    bar->addAction(m_stopAction);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    addAction(help, tr("&Keyboard shortcuts"), QKeySequence(Qt::Key_F1), [this] { showShortcuts(); });
    addAction(help, tr("&About Kernel Workbench"), {}, [this] {
        QMessageBox::about(this, tr("About Kernel Workbench"),
                           tr("Kernel Workbench %1\nLLM-driven GPU kernel optimization with a person in the loop.")
                               .arg(QCoreApplication::applicationVersion()));
    });
}

void MainWindow::connectViews()
{
    connect(m_tree, &CandidateTreeView::candidateSelected, this, &MainWindow::onCandidateSelected);
    connect(m_verdicts, &VerdictsView::evidenceActivated, m_code, &CodeView::showLines);
    connect(m_runs, &RunsDock::runActivated, this, &MainWindow::openRun);
    connect(m_runs, &RunsDock::openRunRequested, this, &MainWindow::onOpenRunDialog);
    connect(m_loader, &RunLoader::started, this, [this](const QString &dir) {
        m_progress->show();
        statusBar()->showMessage(tr("Opening %1…").arg(QDir::toNativeSeparators(dir)));
    });
    connect(m_loader, &RunLoader::loaded, this, &MainWindow::onRunLoaded);
    connect(m_loader, &RunLoader::failed, this, &MainWindow::onRunFailed);
    connect(m_chart, &LatencyChart::candidateClicked, this, &MainWindow::selectCandidate);
    // Raising the Diff tab shows the selection against its parent at once, not an empty view.
    if (QDockWidget *d = dockOf(m_diff))
        connect(d, &QDockWidget::visibilityChanged, this, [this](bool visible) {
            if (visible && !m_selected.isEmpty() && m_diff->rightId() != m_selected) {
                m_diff->setCurrentCandidate(m_selected);
                m_diff->applyQuickPick(DiffView::QuickPick::ParentToChild);
            }
        });

    m_gateBar->setCodeProvider([this] { return m_code->code(); });
    connect(m_gateBar, &GateBar::codeEditingChanged, m_code, &CodeView::setEditable);
    connect(m_tree, &CandidateTreeView::candidateSelected, m_gateBar, &GateBar::setSelectedCandidate);
    connect(m_gateBar, &GateBar::decided, this, [this](const pipeline::GateDecision &d) {
        for (QAction *a : std::as_const(m_gateActions))
            a->setEnabled(false);
        emit gateDecided(d);
    });
}

void MainWindow::restoreSettings()
{
    QSettings s;
    if (!restoreGeometry(s.value(kGeometry).toByteArray()))
        resize(1500, 920);
    // First start (or an older layout): sized from the window once it is shown at its size.
    m_defaultLayoutPending = !restoreState(s.value(kState).toByteArray(), kStateVersion);
    m_tree->restoreHeaderState(s.value(kHeader).toByteArray());
    m_runs->setRecentRuns(s.value(kRecentRuns).toStringList());
    m_runs->restoreSplitterState(s.value(kRunsSplitter).toByteArray());
    setTheme(theme::fromName(s.value(kTheme).toString()));
}

void MainWindow::saveSettings() const
{
    QSettings s;
    s.setValue(kGeometry, saveGeometry());
    s.setValue(kState, saveState(kStateVersion));
    s.setValue(kHeader, m_tree->saveHeaderState());
    if (auto *split = m_runs->findChild<QSplitter *>(QStringLiteral("runsSplitter")))
        s.setValue(kRunsSplitter, split->saveState());
    s.setValue(kTheme, theme::toName(theme::current()));
    if (!m_runDir.isEmpty())
        s.setValue(kLastRun, m_runDir);
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (std::exchange(m_defaultLayoutPending, false))
        applyDefaultLayout();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveSettings();
    QMainWindow::closeEvent(event);
}

QString MainWindow::lastRunDirectory()
{
    return QSettings().value(kLastRun).toString();
}

QString MainWindow::demoRunDirectory(QString *why)
{
    const QString demo = env::resourcesDir() + QStringLiteral("/demo");
    if (store::isRunDirectory(demo))
        return demo;
    const QStringList runs = store::listRuns(demo);
    if (!runs.isEmpty())
        return runs.first();
    if (why)
        *why = tr("The bundled demo run is not installed (looked in %1). It is recorded on a GPU machine and "
                  "shipped later; see resources/demo/README.md. Open any run directory with File > Open run…")
                   .arg(QDir::toNativeSeparators(demo));
    return {};
}

void MainWindow::setTheme(theme::Theme t)
{
    theme::apply(t);
    const bool dark = t == theme::Theme::Dark;
    m_code->setDark(dark);
    m_exchange->setDark(dark);
    m_diff->setDark(dark);
    m_chart->setDark(dark);
    if (m_darkAction)
        m_darkAction->setChecked(dark);
}

QList<QAction *> MainWindow::shortcutActions() const
{
    QList<QAction *> out;
    for (QAction *a : m_actions)
        if (!a->shortcut().isEmpty())
            out.append(a);
    for (QAction *a : m_diff->actions())
        if (!a->shortcut().isEmpty())
            out.append(a);
    return out;
}

const Run &MainWindow::run() const
{
    return m_model->run();
}

void MainWindow::openRun(const QString &dir)
{
    if (dir.isEmpty())
        return;
    m_loader->load(QFileInfo(dir).absoluteFilePath());
}

bool MainWindow::openDemo()
{
    QString why;
    const QString dir = demoRunDirectory(&why);
    if (dir.isEmpty()) {
        showError(tr("No demo run"), why);
        return false;
    }
    openRun(dir);
    return true;
}

void MainWindow::onOpenRunDialog()
{
    const QString start = m_runDir.isEmpty() ? m_runs->runsDir() : QFileInfo(m_runDir).absolutePath();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open run directory"), start);
    if (!dir.isEmpty())
        openRun(dir);
}

void MainWindow::onRunLoaded(const QString &dir, const Run &run, const QStringList &warnings, qint64 elapsedMs)
{
    m_progress->hide();
    m_runDir = dir;
    m_selected.clear();
    m_bodies.clear();
    m_gateBar->closeRequest();
    m_model->setRun(run);
    m_diff->setRun(run, dir);
    m_chart->setRun(run);
    m_profile->setRun(run);
    m_runs->setCurrentRun(dir);
    QSettings().setValue(kRecentRuns, m_runs->recentRuns());
    setWindowTitle(tr("%1 — Kernel Workbench").arg(run.info.id.isEmpty() ? QFileInfo(dir).fileName() : run.info.id));
    updateRunSummary();
    QString msg = tr("Opened %1 (%2 candidates) in %3 ms").arg(QFileInfo(dir).fileName()).arg(run.candidates.size()).arg(elapsedMs);
    if (!warnings.isEmpty())
        msg += tr("; %1").arg(warnings.join(QStringLiteral("; ")));
    statusBar()->showMessage(msg, 8000);
    QSettings().setValue(kLastRun, dir);
    // Start where a person looks first: the best candidate, else the first one.
    if (!m_model->bestId().isEmpty())
        selectCandidate(m_model->bestId());
    else if (!run.candidates.isEmpty())
        selectCandidate(run.candidates.first().id);
    emit runOpened(dir);
    // The live run shown again (from disk, so everything so far is there): its open gate too.
    if (m_pendingGate && showsLiveRun()) {
        const pipeline::GateRequest g = *m_pendingGate;
        onGateOpened(g);
    }
}

void MainWindow::onRunFailed(const QString &dir, const QString &error)
{
    m_progress->hide();
    statusBar()->showMessage(tr("Could not open %1").arg(QDir::toNativeSeparators(dir)), 8000);
    showError(tr("Cannot open run"), error);
    emit runOpenFailed(dir, error);
}

void MainWindow::showError(const QString &title, const QString &text)
{
    if (!m_interactive) {
        statusBar()->showMessage(text, 15000);
        return;
    }
    // Window-modal and non-blocking: the UI thread never waits, not even on a message box.
    auto *box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::updateRunSummary()
{
    const Run &r = run();
    QString s = tr("%1  ·  %2 / %3  ·  %4  ·  %5 candidates")
                    .arg(r.info.taskName.isEmpty() ? tr("task?") : r.info.taskName,
                         r.info.provider.isEmpty() ? tr("provider?") : r.info.provider,
                         r.info.model.isEmpty() ? tr("model?") : r.info.model, toName(r.info.state))
                    .arg(r.candidates.size());
    if (const Candidate *best = r.candidate(m_model->bestId()); best && best->eval) {
        s += tr("  ·  best %1").arg(best->id);
        QStringList scores;
        auto score = [&](const Speedup &sp, const QString &against) {
            if (sp.isValid())
                scores << (sp.withinNoise ? tr("%1 vs %2 (within noise)") : tr("%1 vs %2")).arg(sp.shortText(), against);
        };
        score(Speedup::vsGraph(*best->eval), tr("graph"));
        score(Speedup::vsEager(*best->eval), tr("eager"));
        if (!scores.isEmpty())
            s += QStringLiteral(": ") + scores.join(QStringLiteral(", "));
    }
    m_summary->setFullText(s);
}

void MainWindow::selectCandidate(const QString &id)
{
    m_tree->selectCandidate(id);
}

void MainWindow::onCandidateSelected(const QString &id)
{
    m_selected = id;
    showCandidateDetails(run().candidate(id), true);
    m_diff->setCurrentCandidate(id);
    m_profile->showCandidate(id);
    // Diffing costs a few ms: only while someone can see the diff.
    if (QDockWidget *d = dockOf(m_diff); d && !d->visibleRegion().isEmpty() && !id.isEmpty())
        m_diff->applyQuickPick(DiffView::QuickPick::ParentToChild);
    emit candidateSelected(id);
}

void MainWindow::showCandidateDetails(const Candidate *c, bool reloadCode)
{
    if (!c) {
        m_code->clear();
        m_verdicts->showCandidate(nullptr);
        m_evalDetails->showCandidate(nullptr);
        m_exchange->showExchanges({});
        return;
    }
    if (reloadCode)
        m_code->showCode(c->id, store::readCode(m_runDir, *c));
    m_code->setEvidenceLines(VerdictsView::evidenceRanges(*c));
    m_verdicts->showCandidate(c);
    m_evalDetails->showCandidate(c);
    QList<LlmExchange> calls;
    for (const QString &xid : c->exchangeIds)
        if (const LlmExchange *x = run().exchange(xid))
            calls.append(withBody(*x));
    m_exchange->showExchanges(calls);
}

LlmExchange MainWindow::withBody(const LlmExchange &x)
{
    // The store opens runs with exchange headers only (fast); the text of a call is read when shown.
    if (!x.messages.isEmpty() || !x.response.isEmpty() || m_runDir.isEmpty())
        return x;
    if (auto it = m_bodies.constFind(x.id); it != m_bodies.cend())
        return *it;
    QString error;
    std::optional<LlmExchange> body = store::readExchange(m_runDir, x.id, &error);
    if (!body) {
        LlmExchange shown = x;
        shown.response = tr("[the text of this call could not be read: %1]").arg(error);
        return shown;
    }
    m_bodies.insert(x.id, *body);
    return *body;
}

void MainWindow::clickGate(pipeline::GateAction action)
{
    if (action == pipeline::GateAction::Reprompt && m_gateBar->repromptEdit()->text().trimmed().isEmpty()) {
        m_gateBar->repromptEdit()->setFocus(); // the shortcut first leads to the text box
        return;
    }
    if (QPushButton *b = m_gateBar->button(action); b && b->isEnabled() && m_gateBar->isVisible())
        b->click();
}

void MainWindow::showShortcuts()
{
    auto *dialog = new ShortcutsDialog(shortcutActions(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void MainWindow::onCandidateAdded(const Candidate &c)
{
    if (!showsLiveRun())
        return;
    m_model->addCandidate(c);
    updateRunSummary();
    refreshLiveViews();
}

void MainWindow::onCandidateUpdated(const Candidate &c)
{
    if (!showsLiveRun())
        return;
    m_model->updateCandidate(c);
    updateRunSummary();
    refreshLiveViews();
    // The selected candidate got its result: refresh its verdicts without moving the code view.
    if (c.id == m_selected)
        showCandidateDetails(run().candidate(c.id), m_code->candidateId() != c.id);
}

void MainWindow::onExchangeStarted(const LlmExchange &x)
{
    if (!showsLiveRun())
        return;
    m_model->updateExchange(x);
    m_exchange->onExchangeStarted(x);
}

void MainWindow::onExchangeDelta(const QString &exchangeId, const QString &text)
{
    if (!showsLiveRun())
        return;
    m_exchange->onExchangeDelta(exchangeId, text);
}

void MainWindow::onExchangeFinished(const LlmExchange &x)
{
    if (!showsLiveRun())
        return;
    m_model->updateExchange(x);
    m_exchange->onExchangeFinished(x);
}

void MainWindow::onGateOpened(const pipeline::GateRequest &request)
{
    if (!showsLiveRun()) {
        // Another run is on display: keep the gate for when the live run is shown again.
        m_pendingGate = request;
        statusBar()->showMessage(tr("The live run waits at gate %1: open it again to answer").arg(request.gate));
        return;
    }
    m_pendingGate.reset();
    if (!request.candidateId.isEmpty())
        selectCandidate(request.candidateId);
    m_gateBar->showRequest(request);
    for (auto it = m_gateActions.cbegin(); it != m_gateActions.cend(); ++it)
        it.value()->setEnabled(request.allowed.contains(pipeline::GateAction(it.key())));
    statusBar()->showMessage(tr("Waiting at gate %1").arg(request.gate));
}

void MainWindow::onRunFinished(RunState state)
{
    m_pendingGate.reset();
    m_live = false;
    m_stopAction->setEnabled(false);
    m_runProgress->setText(tr("run %1").arg(toName(state)));
    if (!showsLiveRun())
        return;
    m_gateBar->closeRequest();
    for (QAction *a : std::as_const(m_gateActions))
        a->setEnabled(false);
    RunInfo info = run().info;
    info.state = state;
    m_model->setRunInfo(info);
    updateRunSummary();
    refreshLiveViews();
    // Nothing chosen while the run went by: show its result rather than empty views.
    if (m_selected.isEmpty() && !m_model->bestId().isEmpty())
        selectCandidate(m_model->bestId());
    statusBar()->showMessage(tr("Run %1").arg(toName(state)), 8000);
}

bool MainWindow::showsLiveRun() const
{
    return m_liveDir.isEmpty() || QFileInfo(m_runDir) == QFileInfo(m_liveDir);
}

QDockWidget *MainWindow::dockOf(QWidget *w) const
{
    for (QDockWidget *d : m_docks)
        if (d->widget() == w)
            return d;
    return nullptr;
}

RunController *MainWindow::runController()
{
    if (!m_controller) {
        m_controller = new RunController(this);
        connect(m_controller, &RunController::runStarted, this, [this](pipeline::Pipeline *p, const QString &dir) {
            attachPipeline(p, dir);
            onRunStarted(dir);
        });
        connect(m_controller, &RunController::progress, this, &MainWindow::onRunProgress);
    }
    return m_controller;
}

void MainWindow::refreshLiveViews()
{
    // Both are cheap for a run's size (the chart rebuilds its bars, the diff refreshes its pickers).
    m_diff->updateRun(run());
    m_chart->setRun(run());
    m_profile->setRun(run());
}

bool MainWindow::startRun(const NewRunSettings &settings, QString *error)
{
    QString runsDir = m_runs->runsDir();
    if (runsDir.isEmpty())
        runsDir = env::runsDir();
    QString e;
    if (!runController()->start(settings, runsDir, &e)) {
        showError(tr("Cannot start the run"), e);
        if (error)
            *error = e;
        return false;
    }
    QSettings().setValue(kLastNewRun, settings.toJson());
    return true;
}

void MainWindow::onRunStarted(const QString &runDir)
{
    m_live = true;
    m_stopAction->setEnabled(true);
    const QString note = m_controller->providerNote();
    m_providerNote->setText(note);
    m_providerNote->setVisible(!note.isEmpty());
    // A replayed answer is not a model's: say so where a person looks while the loop runs.
    m_providerNote->setStyleSheet(m_controller->isShippedReplay() ? QStringLiteral("font-weight: bold") : QString());
    m_runProgress->show();
    m_runs->refresh();
    m_runs->setCurrentRun(runDir);
    statusBar()->showMessage(tr("Run started in %1").arg(QDir::toNativeSeparators(runDir)), 8000);
}

void MainWindow::onRunProgress(const QString &text)
{
    m_runProgress->setText(text);
}

void MainWindow::newRunDialog(const NewRunSettings &initial)
{
    NewRunSettings start = initial;
    if (start.taskFile.isEmpty()) {
        const QJsonObject last = QSettings().value(kLastNewRun).toJsonObject();
        if (!last.isEmpty())
            start = NewRunSettings::fromJson(last);
    }
    // Window-modal and non-blocking (open(), not exec()): the live views keep updating behind it.
    auto *dialog = new NewRunDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowModality(Qt::WindowModal);
    if (!start.taskFile.isEmpty())
        dialog->setSettings(start);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { startRun(dialog->settings()); });
    dialog->open();
}

NewRunSettings MainWindow::demoReplaySettings() const
{
    NewRunSettings s;
    s.provider = QStringLiteral("replay");
    s.seeds = 2;
    s.gatePolicy = pipeline::GatePolicy::Failures; // a few gates: where something went wrong
    s.trials = 2;
    const TaskIndex index(true);
    // The demo's own task needs CUDA for its speed to mean anything; 1_ReLU runs anywhere.
    QString name = QStringLiteral("1_ReLU");
    if (m_gpu->status().available && !run().info.taskName.isEmpty()
        && !pipeline::shippedCassette(run().info.taskName).isEmpty())
        name = run().info.taskName;
    if (const auto task = index.find(name)) {
        s.taskName = task->name;
        s.taskFile = task->path;
    } else {
        s.taskName = name;
        s.taskFile = env::tasksDir() + QStringLiteral("/level1/1_ReLU.py");
    }
    s.device = name == QLatin1String("1_ReLU") ? QStringLiteral("auto") : QStringLiteral("cuda");
    return s;
}

void MainWindow::replayDemo(bool ask)
{
    if (ask)
        newRunDialog(demoReplaySettings());
    else
        startRun(demoReplaySettings());
}

void MainWindow::stopRun()
{
    if (!m_controller || !m_controller->isRunning())
        return;
    m_gateBar->closeRequest();
    m_controller->stop();
    statusBar()->showMessage(tr("Stopping the run after the current step…"), 8000);
}

void MainWindow::comparePrompts(const QString &leftExchangeId, const QString &rightExchangeId)
{
    const LlmExchange *a = run().exchange(leftExchangeId);
    const LlmExchange *b = run().exchange(rightExchangeId);
    if (!a || !b)
        return;
    m_diff->compareExchanges(withBody(*a), withBody(*b));
    if (QDockWidget *d = dockOf(m_diff)) {
        d->show();
        d->raise();
    }
}

void MainWindow::chooseExchangeToDiff()
{
    const QString current = m_exchange->currentExchangeId();
    if (current.isEmpty()) {
        statusBar()->showMessage(tr("Select a candidate with an LLM call first"), 5000);
        return;
    }
    QStringList labels;
    QStringList ids;
    for (const LlmExchange &x : run().exchanges) {
        if (x.id == current)
            continue;
        labels.append(tr("%1  (%2)").arg(x.callType, x.id));
        ids.append(x.id);
    }
    if (ids.isEmpty()) {
        statusBar()->showMessage(tr("This run has no other LLM call"), 5000);
        return;
    }
    auto *dialog = new QInputDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Diff LLM prompts"));
    dialog->setLabelText(tr("Compare the prompt of %1 with:").arg(current));
    dialog->setComboBoxItems(labels);
    connect(dialog, &QInputDialog::textValueSelected, this, [this, current, labels, ids](const QString &label) {
        const int i = labels.indexOf(label);
        if (i >= 0)
            comparePrompts(current, ids.at(i));
    });
    dialog->open();
}

void MainWindow::exportChart()
{
    if (m_chart->barCount() == 0)
        return showError(tr("No chart"), tr("The run has no measured candidate to chart yet."));
    const QString base = run().info.id.isEmpty() ? QStringLiteral("latency") : run().info.id + QStringLiteral("-latency");
    auto *dialog = new QFileDialog(this, tr("Export chart"), QDir::home().filePath(base + QStringLiteral(".png")),
                                   tr("PNG image (*.png);;SVG drawing (*.svg)"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &file) {
        QString error;
        const bool svg = file.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive);
        const bool ok = svg ? m_chart->saveSvg(file, QSize(1200, 600), &error) : m_chart->savePng(file, QSize(1200, 600), &error);
        if (!ok)
            showError(tr("Cannot export the chart"), error);
        else
            statusBar()->showMessage(tr("Chart saved to %1").arg(QDir::toNativeSeparators(file)), 8000);
    });
    dialog->open();
}

} // namespace kwb

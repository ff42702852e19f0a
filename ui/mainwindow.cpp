// SPDX-License-Identifier: MIT
#include "mainwindow.h"

#include "candidatetreemodel.h"
#include "candidatetreeview.h"
#include "codeview.h"
#include "env/locations.h"
#include "exchangeview.h"
#include "gatebar.h"
#include "icons.h"
#include "runloader.h"
#include "runsdock.h"
#include "shortcutsdialog.h"
#include "store/runstore.h"
#include "verdictsview.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
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
constexpr int kStateVersion = 1;
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
    m_exchange = new ExchangeView(this);
    m_gateBar = new GateBar(this);
    m_runs = new RunsDock(this);
    m_loader = new RunLoader(this);

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addWidget(m_gateBar);
    layout->addWidget(m_code, 1);
    setCentralWidget(central);

    m_summary = new QLabel(tr("No run open"), this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 0); // busy indicator: the store does not report partial progress
    m_progress->setMaximumWidth(160);
    m_progress->hide();
    statusBar()->addWidget(m_summary, 1);
    statusBar()->addPermanentWidget(m_progress);
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
    splitDockWidget(runs, cands, Qt::Vertical);
    splitDockWidget(verdicts, llm, Qt::Vertical);
    // First-start proportions; restoreState() replaces them once the user has arranged the docks.
    resizeDocks({runs, cands}, {260, 700}, Qt::Vertical);
    resizeDocks({cands, verdicts}, {760, 420}, Qt::Horizontal);
    resizeDocks({verdicts, llm}, {320, 600}, Qt::Vertical);
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
    addAction(file, tr("&Open run…"), QKeySequence::Open, [this] { onOpenRunDialog(); });
    addAction(file, tr("Open &demo run"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), [this] { openDemo(); });
    addAction(file, tr("&Reload run"), QKeySequence(Qt::Key_F5), [this] {
        if (!m_runDir.isEmpty())
            openRun(m_runDir);
    });
    addAction(file, tr("Refresh runs and &tasks"), QKeySequence(Qt::CTRL | Qt::Key_R), [this] { m_runs->refresh(); });
    file->addSeparator();
    addAction(file, tr("&Quit"), QKeySequence::Quit, [this] { close(); });

    QMenu *view = menuBar()->addMenu(tr("&View"));
    addAction(view, tr("&Filter candidates"), QKeySequence::Find, [this] { m_tree->focusFilter(); });
    addAction(view, tr("Go to &best candidate"), QKeySequence(Qt::CTRL | Qt::Key_B), [this] {
        selectCandidate(m_model->bestId());
    });
    addAction(view, tr("Go to &parent candidate"), QKeySequence(Qt::ALT | Qt::Key_Up), [this] {
        if (const Candidate *c = run().candidate(m_selected); c && !c->parentId.isEmpty())
            selectCandidate(c->parentId);
    });
    addAction(view, tr("&Next verdict"), QKeySequence(Qt::Key_F8), [this] { m_verdicts->activateNext(+1); });
    addAction(view, tr("Pre&vious verdict"), QKeySequence(Qt::SHIFT | Qt::Key_F8), [this] { m_verdicts->activateNext(-1); });
    addAction(view, tr("Focus &candidate tree"), QKeySequence(Qt::CTRL | Qt::Key_1), [this] {
        m_tree->treeView()->setFocus();
    });
    addAction(view, tr("Focus c&ode"), QKeySequence(Qt::CTRL | Qt::Key_2), [this] { m_code->setFocus(); });
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
    restoreState(s.value(kState).toByteArray(), kStateVersion);
    m_tree->restoreHeaderState(s.value(kHeader).toByteArray());
    if (auto *split = m_runs->findChild<QSplitter *>(QStringLiteral("runsSplitter")))
        split->restoreState(s.value(kRunsSplitter).toByteArray());
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
    if (m_darkAction)
        m_darkAction->setChecked(dark);
}

QList<QAction *> MainWindow::shortcutActions() const
{
    QList<QAction *> out;
    for (QAction *a : m_actions)
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
    m_runs->setCurrentRun(dir);
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
        const double speedup = best->eval->speedupVsEager();
        s += tr("  ·  best %1").arg(best->id);
        if (std::isfinite(speedup))
            s += tr(" (%1× vs eager)").arg(speedup, 0, 'f', 2);
    }
    m_summary->setText(s);
}

void MainWindow::selectCandidate(const QString &id)
{
    m_tree->selectCandidate(id);
}

void MainWindow::onCandidateSelected(const QString &id)
{
    m_selected = id;
    showCandidateDetails(run().candidate(id), true);
    emit candidateSelected(id);
}

void MainWindow::showCandidateDetails(const Candidate *c, bool reloadCode)
{
    if (!c) {
        m_code->clear();
        m_verdicts->showCandidate(nullptr);
        m_exchange->showExchanges({});
        return;
    }
    if (reloadCode)
        m_code->showCode(c->id, store::readCode(m_runDir, *c));
    m_code->setEvidenceLines(VerdictsView::evidenceRanges(*c));
    m_verdicts->showCandidate(c);
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
    m_model->addCandidate(c);
    updateRunSummary();
}

void MainWindow::onCandidateUpdated(const Candidate &c)
{
    m_model->updateCandidate(c);
    updateRunSummary();
    // The selected candidate got its result: refresh its verdicts without moving the code view.
    if (c.id == m_selected)
        showCandidateDetails(run().candidate(c.id), m_code->candidateId() != c.id);
}

void MainWindow::onExchangeStarted(const LlmExchange &x)
{
    m_model->updateExchange(x);
    m_exchange->onExchangeStarted(x);
}

void MainWindow::onExchangeDelta(const QString &exchangeId, const QString &text)
{
    m_exchange->onExchangeDelta(exchangeId, text);
}

void MainWindow::onExchangeFinished(const LlmExchange &x)
{
    m_model->updateExchange(x);
    m_exchange->onExchangeFinished(x);
}

void MainWindow::onGateOpened(const pipeline::GateRequest &request)
{
    if (!request.candidateId.isEmpty())
        selectCandidate(request.candidateId);
    m_gateBar->showRequest(request);
    for (auto it = m_gateActions.cbegin(); it != m_gateActions.cend(); ++it)
        it.value()->setEnabled(request.allowed.contains(pipeline::GateAction(it.key())));
    statusBar()->showMessage(tr("Waiting at gate %1").arg(request.gate));
}

void MainWindow::onRunFinished(RunState state)
{
    m_gateBar->closeRequest();
    for (QAction *a : std::as_const(m_gateActions))
        a->setEnabled(false);
    RunInfo info = run().info;
    info.state = state;
    m_model->setRunInfo(info);
    updateRunSummary();
    statusBar()->showMessage(tr("Run %1").arg(toName(state)), 8000);
}

} // namespace kwb

// SPDX-License-Identifier: MIT
// The views and their wiring: selection drives the code and verdict views, clicking a verdict moves
// the code view to its lines, the gate bar emits each decision, the LLM view streams in batches.
#include "candidatetreemodel.h"
#include "candidatetreeview.h"
#include "codeview.h"
#include "evaldetailsview.h"
#include "exchangeview.h"
#include "fixturerun.h"
#include "gatebar.h"
#include "mainwindow.h"
#include "verdictsview.h"

#include <Qsci/qsciscintilla.h>

#include <QDockWidget>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QTreeWidget>

using namespace kwb;
using pipeline::GateAction;
using pipeline::GateDecision;
using pipeline::GatePoint;
using pipeline::GateRequest;

namespace {
GateRequest request(GatePoint point)
{
    GateRequest r;
    r.serial = 1;
    r.point = point;
    r.gate = QStringLiteral("after_eval:c0003");
    r.step = QStringLiteral("algorithm_optimized_seed1");
    r.candidateId = QStringLiteral("c0003");
    r.code = QStringLiteral("print('original')\n");
    r.messages = {{QStringLiteral("system"), QStringLiteral("sys")}, {QStringLiteral("user"), QStringLiteral("make it fast")}};
    r.summary = QStringLiteral("c0003 is correct and 3x faster");
    r.allowed = pipeline::allowedActions(point);
    return r;
}

QTreeWidgetItem *findItem(QTreeWidget *tree, const QString &startsWith)
{
    for (QTreeWidgetItemIterator it(tree); *it; ++it)
        if ((*it)->text(0).startsWith(startsWith))
            return *it;
    return nullptr;
}
} // namespace

/// Stands in for core/pipeline's Pipeline: the same signals and submitDecision slot, driven by the test.
class ScriptedEngine : public QObject
{
    Q_OBJECT
public:
    Run m_run;
    QList<GateDecision> decisions;
    const Run &run() const { return m_run; }

public slots:
    void submitDecision(const kwb::pipeline::GateDecision &d, int serial = 0)
    {
        Q_UNUSED(serial);
        decisions.append(d);
    }

signals:
    void candidateAdded(const kwb::Candidate &candidate);
    void candidateUpdated(const kwb::Candidate &candidate);
    void exchangeStarted(const kwb::LlmExchange &exchange);
    void exchangeDelta(const QString &exchangeId, const QString &text);
    void exchangeFinished(const kwb::LlmExchange &exchange);
    void gateOpened(const kwb::pipeline::GateRequest &request);
    void finished(kwb::RunState state);
};

class TestViews : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    fixture::StandardRun m_fixture;

    GateDecision lastDecision(QSignalSpy &spy) { return spy.last().at(0).value<GateDecision>(); }

private slots:
    void initTestCase()
    {
        qRegisterMetaType<GateDecision>();
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_tmp.filePath(QStringLiteral("config")));
        QCoreApplication::setOrganizationName(QStringLiteral("kwb-test"));
        qputenv("KWB_RUNS_DIR", m_tmp.filePath(QStringLiteral("runs")).toUtf8());
        m_fixture = fixture::writeStandardRun(m_tmp.filePath(QStringLiteral("runs")));
    }

    void selectionDrivesCodeAndVerdicts()
    {
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy opened(&w, &MainWindow::runOpened);
        w.openRun(m_fixture.dir);
        QVERIFY(opened.wait(10000));
        // The best candidate is selected first.
        QCOMPARE(w.candidateView()->currentCandidateId(), QStringLiteral("c0002"));
        QCOMPARE(w.codeView()->candidateId(), QStringLiteral("c0002"));

        QSignalSpy selected(&w, &MainWindow::candidateSelected);
        w.candidateView()->selectCandidate(QStringLiteral("c0003"));
        QCOMPARE(selected.count(), 1);
        QCOMPARE(w.codeView()->candidateId(), QStringLiteral("c0003"));
        QCOMPARE(w.codeView()->code(), fixture::code(QStringLiteral("c0003")));
        QVERIFY(!w.codeView()->isEditable());
        // Evidence lines of the "yes" verdicts carry markers; the clean verdict adds none.
        QCOMPARE(w.codeView()->markedLines(0), (QList<int>{5, 90, 91, 92}));
        QTreeWidget *verdicts = w.verdictsView()->treeWidget();
        QVERIFY(findItem(verdicts, QStringLiteral("integrity.reference_call")));
        QVERIFY(findItem(verdicts, QStringLiteral("grid_one_dim")));
        QVERIFY(findItem(verdicts, QStringLiteral("Suggested fix: tile the hidden dimension too")));
        // The LLM view shows the call that produced it.
        QCOMPARE(w.exchangeView()->currentExchangeId(), m_fixture.run.candidate(QStringLiteral("c0003"))->exchangeIds.first());
        QVERIFY(w.exchangeView()->promptText().contains(QStringLiteral("Optimize `Model`")));
        QVERIFY(w.exchangeView()->infoText().contains(QStringLiteral("3,000 in")) || w.exchangeView()->infoText().contains(QStringLiteral("3000 in")));

        // Another candidate replaces everything, including the markers.
        w.candidateView()->selectCandidate(QStringLiteral("c0005"));
        QCOMPARE(w.codeView()->candidateId(), QStringLiteral("c0005"));
        QVERIFY(w.codeView()->markedLines(0).isEmpty());
        QVERIFY(!findItem(w.verdictsView()->treeWidget(), QStringLiteral("integrity.reference_call")));
    }

    void clickingAVerdictMovesTheCode()
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1200, 700);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy opened(&w, &MainWindow::runOpened);
        w.openRun(m_fixture.dir);
        QVERIFY(opened.wait(10000));
        w.selectCandidate(QStringLiteral("c0003"));
        QsciScintilla *editor = w.codeView()->editor();
        QCOMPARE(editor->firstVisibleLine(), 0);
        // The verdicts share their place with the evaluation details: bring them to the front.
        w.findChild<QDockWidget *>(QStringLiteral("dockVerdicts"))->raise();

        QTreeWidget *tree = w.verdictsView()->treeWidget();
        QTreeWidgetItem *item = findItem(tree, QStringLiteral("integrity.reference_call"));
        QVERIFY(item);
        tree->scrollToItem(item);
        const QRect rect = tree->visualItemRect(item);
        QVERIFY(rect.isValid());
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, rect.center());

        QCOMPARE(w.codeView()->markedLines(1), (QList<int>{90, 91, 92}));
        int line = -1, col = -1;
        editor->getCursorPosition(&line, &col);
        QCOMPARE(line, 89); // 0-based
        QVERIFY(editor->firstVisibleLine() > 50);
        QVERIFY(editor->firstVisibleLine() <= 89);

        // F8 walks the located verdicts: the next one after the integrity check wraps to the grid warning.
        w.verdictsView()->activateNext(+1);
        QCOMPARE(w.codeView()->markedLines(1), (QList<int>{5}));
    }

    void gateBarEmitsDecisions()
    {
        GateBar bar;
        QSignalSpy spy(&bar, &GateBar::decided);
        QVERIFY(bar.isHidden());

        bar.showRequest(request(GatePoint::AfterEvaluation));
        QVERIFY(!bar.isHidden());
        bar.button(GateAction::Approve)->click();
        QCOMPARE(spy.count(), 1);
        QCOMPARE(lastDecision(spy).action, GateAction::Approve);
        QVERIFY(bar.isHidden());
        bar.button(GateAction::Approve)->click(); // closed: nothing more
        QCOMPARE(spy.count(), 1);

        bar.showRequest(request(GatePoint::AfterEvaluation));
        bar.button(GateAction::Skip)->click();
        QCOMPARE(lastDecision(spy).action, GateAction::Skip);

        bar.showRequest(request(GatePoint::AfterEvaluation));
        bar.button(GateAction::Stop)->click();
        QCOMPARE(lastDecision(spy).action, GateAction::Stop);

        // Re-prompt needs text.
        bar.showRequest(request(GatePoint::AfterEvaluation));
        QVERIFY(!bar.button(GateAction::Reprompt)->isEnabled());
        QTest::keyClicks(bar.repromptEdit(), QStringLiteral("use tl.dot tiles"));
        QVERIFY(bar.button(GateAction::Reprompt)->isEnabled());
        bar.button(GateAction::Reprompt)->click();
        QCOMPARE(lastDecision(spy).action, GateAction::Reprompt);
        QCOMPARE(lastDecision(spy).text, QStringLiteral("use tl.dot tiles"));
        QCOMPARE(lastDecision(spy).candidateId, QStringLiteral("c0003"));

        // Use as base proposes the candidate selected in the tree.
        bar.showRequest(request(GatePoint::AfterEvaluation));
        QVERIFY(!bar.button(GateAction::UseAsBase)->isEnabled());
        bar.setSelectedCandidate(QStringLiteral("c0002"));
        bar.button(GateAction::UseAsBase)->click();
        QCOMPARE(lastDecision(spy).action, GateAction::UseAsBase);
        QCOMPARE(lastDecision(spy).candidateId, QStringLiteral("c0002"));

        // Edit code: first press opens the editor, second submits what the code view holds.
        QString editorText = QStringLiteral("print('edited')\n");
        bar.setCodeProvider([&] { return editorText; });
        QSignalSpy editing(&bar, &GateBar::codeEditingChanged);
        bar.showRequest(request(GatePoint::AfterEvaluation));
        bar.button(GateAction::EditCode)->click();
        QCOMPARE(editing.count(), 1);
        QCOMPARE(editing.last().at(0).toBool(), true);
        QVERIFY(bar.isEditingCode());
        bar.button(GateAction::EditCode)->click();
        QCOMPARE(lastDecision(spy).action, GateAction::EditCode);
        QCOMPARE(lastDecision(spy).text, editorText);
        QCOMPARE(editing.last().at(0).toBool(), false);

        // Edit prompt (before the LLM call): the asker gets the last user message.
        QString askedWith;
        std::optional<QString> answer = QStringLiteral("make it faster, keep fp32");
        bar.setTextAsker([&](const QString &, const QString &, const QString &initial) {
            askedWith = initial;
            return answer;
        });
        bar.showRequest(request(GatePoint::BeforeLlm));
        QVERIFY(!bar.button(GateAction::EditCode)->isEnabled()); // not allowed before the call
        bar.button(GateAction::EditPrompt)->click();
        QCOMPARE(askedWith, QStringLiteral("make it fast"));
        QCOMPARE(lastDecision(spy).action, GateAction::EditPrompt);
        QCOMPARE(lastDecision(spy).text, *answer);
    }

    void overrideAsksForAReason()
    {
        GateBar bar;
        QSignalSpy spy(&bar, &GateBar::decided);
        std::optional<QString> answer;
        bar.setTextAsker([&](const QString &, const QString &, const QString &) { return answer; });

        GateRequest clean = request(GatePoint::AfterEvaluation);
        clean.eval = fixture::eval(EvalStatus::Ok, 10, 0.1);
        bar.showRequest(clean);
        QVERIFY(bar.button(GateAction::Override)->isHidden()); // nothing to override

        GateRequest flagged = clean;
        Verdict v;
        v.detector = QStringLiteral("integrity.reference_call");
        v.outcome = Outcome::Yes;
        v.severity = Severity::Critical;
        flagged.eval->runtimeChecks = {v};
        bar.showRequest(flagged);
        QVERIFY(!bar.button(GateAction::Override)->isHidden());
        bar.button(GateAction::Override)->click(); // cancelled
        QCOMPARE(spy.count(), 0);
        answer = QStringLiteral("   ");
        bar.button(GateAction::Override)->click(); // blank is no reason
        QCOMPARE(spy.count(), 0);
        QVERIFY(bar.isOpen());
        answer = QStringLiteral("the reference call is the fp64 check, not the output");
        bar.button(GateAction::Override)->click();
        QCOMPARE(spy.count(), 1);
        QCOMPARE(lastDecision(spy).action, GateAction::Override);
        QCOMPARE(lastDecision(spy).reason, *answer);
        QCOMPARE(lastDecision(spy).candidateId, QStringLiteral("c0003"));
    }

    void mainWindowGateMakesCodeEditable()
    {
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy opened(&w, &MainWindow::runOpened);
        w.openRun(m_fixture.dir);
        QVERIFY(opened.wait(10000));
        QSignalSpy decided(&w, &MainWindow::gateDecided);
        w.onGateOpened(request(GatePoint::AfterEvaluation));
        QCOMPARE(w.candidateView()->currentCandidateId(), QStringLiteral("c0003")); // the gate's candidate
        QVERIFY(!w.codeView()->isEditable());
        w.gateBar()->button(GateAction::EditCode)->click();
        QVERIFY(w.codeView()->isEditable());
        w.codeView()->editor()->setText(QStringLiteral("print('by hand')\n"));
        w.gateBar()->button(GateAction::EditCode)->click();
        QCOMPARE(decided.count(), 1);
        const auto d = decided.last().at(0).value<GateDecision>();
        QCOMPARE(d.action, GateAction::EditCode);
        QCOMPARE(d.text, QStringLiteral("print('by hand')\n"));
        QVERIFY(!w.codeView()->isEditable());
    }

    void scriptedEngineDrivesAGatedRun()
    {
        ScriptedEngine engine;
        engine.m_run = m_fixture.run;
        MainWindow w;
        w.setInteractive(false);
        w.attachPipeline(&engine, m_fixture.dir);
        QCOMPARE(w.run().candidates.size(), 5);

        // An LLM call streams, then produces c0100 under c0002.
        LlmExchange x = m_fixture.run.exchanges.first();
        x.id = QStringLiteral("x0100");
        x.response.clear();
        emit engine.exchangeStarted(x);
        emit engine.exchangeDelta(x.id, QStringLiteral("streamed answer"));
        QTRY_COMPARE(w.exchangeView()->responseText(), QStringLiteral("streamed answer"));
        x.response = QStringLiteral("streamed answer");
        emit engine.exchangeFinished(x);

        Candidate c;
        c.id = QStringLiteral("c0100");
        c.parentId = QStringLiteral("c0002");
        c.kind = CandidateKind::StageBlock;
        c.codeFile = QStringLiteral("kernels/c0002.py"); // a real file of the run
        c.exchangeIds = {x.id};
        emit engine.candidateAdded(c);
        const QModelIndex idx = w.candidateModel()->indexOf(c.id);
        QVERIFY(idx.isValid());
        QCOMPARE(idx.parent(), w.candidateModel()->indexOf(QStringLiteral("c0002")));

        // The engine waits after generation: the bar shows, the candidate is selected.
        GateRequest gate = request(GatePoint::AfterGeneration);
        gate.candidateId = c.id;
        gate.gate = QStringLiteral("after_generation:c0100");
        emit engine.gateOpened(gate);
        QVERIFY(!w.gateBar()->isHidden());
        QCOMPARE(w.candidateView()->currentCandidateId(), c.id);
        QCOMPARE(w.codeView()->code(), fixture::code(QStringLiteral("c0002")));
        QVERIFY(w.exchangeView()->currentExchangeId() == x.id);

        QTest::keyClicks(w.gateBar()->repromptEdit(), QStringLiteral("keep the persistent loop"));
        w.gateBar()->button(GateAction::Reprompt)->click();
        QCOMPARE(engine.decisions.size(), 1);
        QCOMPARE(engine.decisions.first().action, GateAction::Reprompt);
        QCOMPARE(engine.decisions.first().text, QStringLiteral("keep the persistent loop"));
        QVERIFY(w.gateBar()->isHidden());

        // The engine answers with a re-prompt child and evaluates the first one.
        Candidate re = c;
        re.id = QStringLiteral("c0101");
        re.parentId = c.id;
        re.kind = CandidateKind::Reprompt;
        emit engine.candidateAdded(re);
        c.status = CandidateStatus::Evaluated;
        c.eval = fixture::eval(EvalStatus::Ok, 20.0, 0.3);
        emit engine.candidateUpdated(c);
        QCOMPARE(w.candidateModel()->indexOf(re.id).parent(), w.candidateModel()->indexOf(c.id));
        QCOMPARE(w.candidateView()->currentCandidateId(), c.id); // selection survived the live changes
        QCOMPARE(w.candidateModel()->bestId(), c.id);
        emit engine.finished(RunState::Finished);
        QCOMPARE(w.run().info.state, RunState::Finished);
        QVERIFY(w.gateBar()->isHidden());
    }

    void finishedRunShowsItsBest()
    {
        // Candidates arrive without a gate, so nobody selects one: at the end the best is shown,
        // with its evaluation, rather than empty views.
        ScriptedEngine engine;
        engine.m_run.info = m_fixture.run.info;
        MainWindow w;
        w.setInteractive(false);
        w.attachPipeline(&engine, m_fixture.dir);
        QVERIFY(w.candidateView()->currentCandidateId().isEmpty());
        for (const QString &id : {QStringLiteral("c0002"), QStringLiteral("c0005")})
            emit engine.candidateAdded(*m_fixture.run.candidate(id));
        QVERIFY(w.candidateView()->currentCandidateId().isEmpty());
        emit engine.finished(RunState::Finished);
        QCOMPARE(w.candidateView()->currentCandidateId(), w.candidateModel()->bestId());
        QVERIFY(!w.candidateModel()->bestId().isEmpty());
        QVERIFY(w.evalDetailsView()->plainText().contains(w.candidateModel()->bestId()));
    }

    void exchangeStreamsInBatches()
    {
        ExchangeView view;
        LlmExchange x;
        x.id = QStringLiteral("x0042");
        x.callType = QStringLiteral("stage_grid");
        x.messages = {{QStringLiteral("user"), QStringLiteral("tune the grid")}};
        view.onExchangeStarted(x);
        QCOMPARE(view.currentExchangeId(), QStringLiteral("x0042"));
        view.onExchangeDelta(x.id, QStringLiteral("Here "));
        view.onExchangeDelta(x.id, QStringLiteral("is "));
        view.onExchangeDelta(QStringLiteral("x9999"), QStringLiteral("other call"));
        // Batched: nothing is painted before the timer fires.
        QCOMPARE(view.responseText(), QString());
        QTRY_COMPARE(view.responseText(), QStringLiteral("Here is "));
        view.onExchangeDelta(x.id, QStringLiteral("```python\nimport triton\n```"));
        QTRY_COMPARE(view.responseText(), QStringLiteral("Here is ```python\nimport triton\n```"));
        x.response = QStringLiteral("Here is ```python\nimport triton\n```");
        x.inputTokens = 1234;
        x.outputTokens = 56;
        x.durationMs = 2500;
        view.onExchangeFinished(x);
        QVERIFY(view.infoText().contains(QStringLiteral("56 out")));
        QVERIFY(view.infoText().contains(QStringLiteral("2.5 s")));
        QCOMPARE(view.responseText(), x.response);
    }
};

QTEST_MAIN(TestViews)
#include "tst_views.moc"

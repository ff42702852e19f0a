// SPDX-License-Identifier: MIT
// A whole gated run through the real window: MainWindow + RunController + Pipeline + Evaluator
// (the Python worker with torch on CPU) + the replay of 1_ReLU's shipped cassette. A person's
// answers are given by clicking the gate bar: approve, re-prompt, edit code, skip a stage. The tree
// in the window and the run directory on disk are checked afterwards, and the diff and latency
// docks hold the run.
#include "chart/latencychart.h"
#include "codeview.h"
#include "candidatetreemodel.h"
#include "diff/diffview.h"
#include "env/locations.h"
#include "eval/evaluator.h"
#include "gatebar.h"
#include "mainwindow.h"
#include "pipeline/cassettes.h"
#include "pipeline/pipeline.h"
#include "runcontroller.h"
#include "runsdock.h"
#include "store/runstore.h"

#include <Qsci/qsciscintilla.h>

#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;
using pipeline::GateAction;

namespace {

const char *kEditedCode = R"(import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Edited at a gate: the library call."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)
)";

const char *kRepromptAnswer = R"(Here it is with clamp:

```python
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(x, min=0.0)
```
)";

/// The shipped 1_ReLU cassette plus an answer for the follow-up a person sends at seed1's gate
/// (a re-prompt is the person's own text: no shipped cassette can know it).
QString writeCassette(const QString &dir)
{
    QFile in(pipeline::shippedCassette(QStringLiteral("1_ReLU")));
    if (!in.open(QIODevice::ReadOnly))
        return {};
    QJsonObject root = QJsonDocument::fromJson(in.readAll()).object();
    QJsonArray xs = root.value(QStringLiteral("exchanges")).toArray();
    xs.append(QJsonObject{{QStringLiteral("call_type"), QStringLiteral("seed1_reprompt1")},
                          {QStringLiteral("response"), QString::fromUtf8(kRepromptAnswer)},
                          {QStringLiteral("messages"), QJsonArray()},
                          {QStringLiteral("model"), QStringLiteral("authored")},
                          {QStringLiteral("provider"), QStringLiteral("replay")}});
    root.insert(QStringLiteral("exchanges"), xs);
    const QString path = dir + QStringLiteral("/relu-with-reprompt.json");
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly))
        return {};
    out.write(QJsonDocument(root).toJson());
    return path;
}

} // namespace

class TestGatedRun : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_tmp;

private slots:
    void initTestCase()
    {
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_tmp.filePath(QStringLiteral("config")));
        QCoreApplication::setOrganizationName(QStringLiteral("kwb-test"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_gatedrun"));
        qputenv("KWB_RUNS_DIR", m_tmp.filePath(QStringLiteral("runs")).toUtf8());
        qputenv("KWB_CACHE_DIR", m_tmp.filePath(QStringLiteral("cache")).toUtf8());
        if (qEnvironmentVariableIsEmpty("KWB_PYTHON"))
            qputenv("KWB_PYTHON", "/usr/bin/python3");
    }

    void wholeGatedRun()
    {
        const QString cassette = writeCassette(m_tmp.path());
        QVERIFY(!cassette.isEmpty());
        const QString runsDir = m_tmp.filePath(QStringLiteral("runs"));

        MainWindow w;
        w.setInteractive(false);
        w.runsDock()->setRunsDir(runsDir);
        w.resize(1400, 900);
        w.show();
        RunController *rc = w.runController();
        rc->setCassetteOverride(cassette);
        rc->setDetectorsEnabled(false); // the detectors have their own tests; here the loop and the window count
        rc->setConfigHook([](pipeline::PipelineConfig &cfg) {
            cfg.seeds = 1;
            cfg.maxRepairs = 1;
            cfg.eval.trials = 1;
            cfg.eval.repeat = 3;
            cfg.eval.warmup = 1;
            cfg.eval.device = QStringLiteral("cpu");
            // Every seed gets its analysis, whatever a microsecond CPU kernel's noisy speedup says:
            // the script below edits the algorithm-optimized candidate, so it must always exist.
            cfg.scoreThreshold = 1e9;
            // The stages' gates below need a best, and an eligible one: the judge's run-time integrity
            // rules, which may refuse an honest microsecond kernel on a loaded CPU (its own tests hold
            // it to them), stay out of a test of the window.
            cfg.eval.integrity = false;
        });
        rc->prestart();

        NewRunSettings s = w.demoReplaySettings();
        QCOMPARE(s.taskName, QStringLiteral("1_ReLU")); // no GPU here: the CPU task
        s.gatePolicy = pipeline::GatePolicy::All;
        QSignalSpy finished(rc, &RunController::runFinished);
        QString error;
        QVERIFY2(w.startRun(s, &error), qPrintable(error));
        QVERIFY(rc->isRunning());
        const QString runDir = rc->pipeline()->runDirectory();
        QCOMPARE(w.runDirectory(), runDir);
        QVERIFY(w.findChild<QLabel *>(QStringLiteral("providerNote"))->text().contains(QStringLiteral("replay of an authored cassette")));
        QVERIFY(!w.findChild<QLabel *>(QStringLiteral("runProgress"))->text().isEmpty());

        GateBar *bar = w.gateBar();
        int lastSerial = 0;
        bool reprompted = false, edited = false, skipped = false;
        QStringList answered;
        while (finished.isEmpty()) {
            // The next gate, or the end: both arrive through the event loop, never by waiting on a clock.
            QVERIFY2(QTest::qWaitFor([&] { return !finished.isEmpty() || (bar->isOpen() && bar->request()->serial > lastSerial); }, 60000),
                     qPrintable(QStringLiteral("no gate and no end after %1").arg(answered.join(QLatin1Char(',')))));
            if (!finished.isEmpty())
                break;
            const pipeline::GateRequest g = *bar->request();
            lastSerial = g.serial;
            QVERIFY(bar->isVisible());
            const Candidate *c = w.run().candidate(g.candidateId);
            const QString label = c ? c->label : QString();
            if (!reprompted && g.point == pipeline::GatePoint::AfterEvaluation && label == QLatin1String("seed1")) {
                // Re-prompt: the follow-up goes to the same conversation.
                bar->repromptEdit()->setText(QStringLiteral("Use torch.clamp instead of the loop."));
                QVERIFY(bar->button(GateAction::Reprompt)->isEnabled());
                bar->button(GateAction::Reprompt)->click();
                reprompted = true;
                answered << QStringLiteral("reprompt:") + g.gate;
            } else if (!edited && g.point == pipeline::GatePoint::AfterGeneration
                       && label.startsWith(QLatin1String("algorithm_optimized"))) {
                // Edit code: the code view turns editable, the person types, then submits.
                QCOMPARE(w.codeView()->candidateId(), g.candidateId);
                bar->button(GateAction::EditCode)->click();
                QVERIFY(!w.codeView()->editor()->isReadOnly());
                w.codeView()->editor()->setText(QString::fromUtf8(kEditedCode));
                bar->button(GateAction::EditCode)->click();
                QVERIFY(w.codeView()->editor()->isReadOnly());
                edited = true;
                answered << QStringLiteral("edit:") + g.gate;
            } else if (!skipped && g.point == pipeline::GatePoint::BeforeLlm && g.step == QLatin1String("stage_grid")) {
                bar->button(GateAction::Skip)->click();
                skipped = true;
                answered << QStringLiteral("skip:") + g.gate;
            } else {
                QVERIFY(bar->button(GateAction::Approve)->isEnabled());
                bar->button(GateAction::Approve)->click();
                answered << QStringLiteral("approve:") + g.gate;
            }
            // Answered: the bar closed, or already shows the next gate (a decision may open it at once).
            QVERIFY(!bar->isOpen() || bar->request()->serial != g.serial);
        }
        QCOMPARE(finished.first().first().value<RunState>(), RunState::Finished);
        QVERIFY2(reprompted && edited && skipped, qPrintable(answered.join(QLatin1Char(','))));
        QVERIFY(!rc->isRunning());

        // The tree in the window: the re-prompt and the edit are nodes of their own, the skipped
        // stage made no candidate, and every candidate is in the model.
        const Run &shown = w.run();
        auto byLabel = [](const Run &r, const QString &label) -> const Candidate * {
            for (const Candidate &c : r.candidates)
                if (c.label == label)
                    return &c;
            return nullptr;
        };
        const Candidate *re = byLabel(shown, QStringLiteral("seed1_reprompt1"));
        QVERIFY(re);
        QCOMPARE(re->kind, CandidateKind::Reprompt);
        QVERIFY(re->eval && re->eval->correct());
        int edits = 0;
        for (const Candidate &c : shown.candidates) {
            QVERIFY2(w.candidateModel()->indexOf(c.id).isValid(), qPrintable(c.id));
            QVERIFY(!c.label.startsWith(QLatin1String("stage_grid")));
            if (c.kind == CandidateKind::ManualEdit) {
                ++edits;
                QVERIFY(store::readCode(runDir, c).contains(QLatin1String("Edited at a gate")));
            }
        }
        QCOMPARE(edits, 1);
        QVERIFY(byLabel(shown, QStringLiteral("stage_block")) || byLabel(shown, QStringLiteral("stage_memory")));
        QCOMPARE(shown.info.state, RunState::Finished);

        // The run directory on disk says the same.
        const auto onDisk = store::openRun(runDir, &error);
        QVERIFY2(onDisk, qPrintable(error));
        QCOMPARE(onDisk->info.state, RunState::Finished);
        QCOMPARE(onDisk->candidates.size(), shown.candidates.size());
        QStringList decisions;
        for (const GateRecord &g : onDisk->gates)
            decisions << g.decision;
        QVERIFY2(decisions.contains(QStringLiteral("reprompt")) && decisions.contains(QStringLiteral("edit_code"))
                     && decisions.contains(QStringLiteral("skip")) && decisions.contains(QStringLiteral("approve")),
                 qPrintable(decisions.join(QLatin1Char(','))));
        QCOMPARE(decisions.size(), answered.size());

        // The live chart and diff followed the run.
        QVERIFY(w.latencyChart()->barCount() > 0);
        QCOMPARE(w.latencyChart()->barCount(), LatencyChart::barsOf(onDisk.value()).size());
        w.selectCandidate(re->id);
        QVERIFY(w.diffView()->applyQuickPick(DiffView::QuickPick::ParentToChild));
        QCOMPARE(w.diffView()->rightId(), re->id);
        QVERIFY(w.diffView()->changeCount() > 0);

        // Opened again from disk (as after a restart), the docks are populated.
        QSignalSpy opened(&w, &MainWindow::runOpened);
        w.openRun(runDir);
        QVERIFY(opened.wait(20000));
        QCOMPARE(w.run().candidates.size(), onDisk->candidates.size());
        QVERIFY(w.latencyChart()->barCount() > 0);
        QVERIFY(w.diffView()->quickPickIds(DiffView::QuickPick::ParentToChild).first.size() > 0
                || w.run().candidate(w.run().candidates.first().id));
    }

    void stopCancelsTheRun()
    {
        const QString runsDir = m_tmp.filePath(QStringLiteral("runs-stop"));
        MainWindow w;
        w.setInteractive(false);
        w.runsDock()->setRunsDir(runsDir);
        RunController *rc = w.runController();
        rc->setDetectorsEnabled(false);
        rc->setConfigHook([](pipeline::PipelineConfig &cfg) {
            cfg.seeds = 1;
            cfg.eval.trials = 1;
            cfg.eval.device = QStringLiteral("cpu");
        });
        NewRunSettings s = w.demoReplaySettings();
        s.gatePolicy = pipeline::GatePolicy::None;
        QSignalSpy finished(rc, &RunController::runFinished);
        QString error;
        QVERIFY2(w.startRun(s, &error), qPrintable(error));
        // Stop while the first evaluation runs: it is cancelled, not waited for.
        QVERIFY(QTest::qWaitFor([&] { return rc->evaluator()->pendingJobs() > 0 || !finished.isEmpty(); }, 30000));
        w.stopRun();
        QVERIFY(finished.wait(30000) || !finished.isEmpty());
        QCOMPARE(finished.first().first().value<RunState>(), RunState::Stopped);
        const auto onDisk = store::openRun(rc->pipeline()->runDirectory(), &error);
        QVERIFY2(onDisk, qPrintable(error));
        QCOMPARE(onDisk->info.state, RunState::Stopped);
    }
};

QTEST_MAIN(TestGatedRun)
#include "tst_gatedrun.moc"

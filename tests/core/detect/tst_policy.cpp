// SPDX-License-Identifier: MIT
// The verdict -> next-step policy, one row per case of the table.
#include "detect/policy.h"

#include <QTest>

using namespace kwb;
using namespace kwb::detect;

Q_DECLARE_METATYPE(QList<kwb::Verdict>)

namespace {

Verdict v(const char *detector, Outcome o, Severity s = Severity::Info, const char *fix = "")
{
    Verdict x;
    x.detector = QLatin1String(detector);
    x.outcome = o;
    x.severity = s;
    x.summary = QStringLiteral("%1 summary").arg(QLatin1String(detector));
    x.evidence = {{12, 30, QStringLiteral("evidence of %1").arg(QLatin1String(detector))}};
    x.suggestedFix = QLatin1String(fix);
    return x;
}

} // namespace

class TestPolicy : public QObject {
    Q_OBJECT
private slots:
    void plan_data()
    {
        QTest::addColumn<QList<Verdict>>("verdicts");
        QTest::addColumn<QString>("rule");
        QTest::addColumn<bool>("grid");
        QTest::addColumn<bool>("block");
        QTest::addColumn<bool>("memory");
        QTest::addColumn<QString>("noteContains");

        const auto yes = Outcome::Yes;
        const auto no = Outcome::No;
        QTest::newRow("no verdicts") << QList<Verdict>{} << "default" << true << true << true << "";
        QTest::newRow("all no") << QList<Verdict>{v("persistent_kernel", no), v("grid_parallelism", no)} << "default"
                                << true << true << true << "";
        QTest::newRow("persistent, good grid (seeds' rule)")
            << QList<Verdict>{v("persistent_kernel", yes), v("grid_parallelism", no)} << "persistent_good_grid" << false
            << false << false << "";
        QTest::newRow("persistent, grid cannot tell")
            << QList<Verdict>{v("persistent_kernel", yes), v("grid_parallelism", Outcome::CannotTell)}
            << "persistent_good_grid" << false << false << false << "";
        QTest::newRow("persistent, batch-only grid")
            << QList<Verdict>{v("persistent_kernel", yes), v("grid_parallelism", yes, Severity::Warning, "use a 2-D grid")}
            << "persistent_batch_grid" << true << false << false << "use a 2-D grid";
        QTest::newRow("batch-only grid, not persistent")
            << QList<Verdict>{v("persistent_kernel", no), v("grid_parallelism", yes)} << "default" << true << true << true
            << "";
        QTest::newRow("output mismatch adds the requirement")
            << QList<Verdict>{v("output_requirement", yes, Severity::Warning, "The task returns only h_n")} << "default"
            << true << true << true << "Output requirement: The task returns only h_n";
        QTest::newRow("persistent + output mismatch")
            << QList<Verdict>{v("persistent_kernel", yes), v("output_requirement", yes, Severity::Warning, "only h_n")}
            << "persistent_good_grid" << false << false << false << "only h_n";
        QTest::newRow("launch-bound python loop")
            << QList<Verdict>{v("launch_bound_loop", yes, Severity::Warning, "move the loop into the kernel")}
            << "default" << true << true << true << "move the loop into the kernel";
        QTest::newRow("integrity violation stops tuning")
            << QList<Verdict>{v("persistent_kernel", yes), v("integrity.reference_call", yes, Severity::Critical, "no nn.GRU")}
            << "integrity_violation" << false << false << false << "no nn.GRU";
        QTest::newRow("integrity warning does not")
            << QList<Verdict>{v("integrity.threads", yes, Severity::Warning)} << "default" << true << true << true << "";
    }

    void plan()
    {
        QFETCH(QList<Verdict>, verdicts);
        QFETCH(QString, rule);
        QFETCH(bool, grid);
        QFETCH(bool, block);
        QFETCH(bool, memory);
        QFETCH(QString, noteContains);
        const StagePlan p = planStages(verdicts);
        QCOMPARE(p.rule, rule);
        QCOMPARE(p.grid, grid);
        QCOMPARE(p.block, block);
        QCOMPARE(p.memory, memory);
        QVERIFY2(p.explanation.contains(rule), qPrintable(p.explanation));
        if (noteContains.isEmpty())
            QVERIFY2(p.promptNotes.isEmpty(), qPrintable(p.promptNotes.join('|')));
        else
            QVERIFY2(p.promptNotes.join('\n').contains(noteContains), qPrintable(p.promptNotes.join('|')));
    }

    void gridNoteCarriesEvidence()
    {
        const StagePlan p = planStages({v("persistent_kernel", Outcome::Yes), v("grid_parallelism", Outcome::Yes)});
        QCOMPARE(p.promptNotes.size(), 1);
        QVERIFY(p.promptNotes.first().contains(QStringLiteral("lines 12-30: evidence of grid_parallelism")));
    }

    void describeListsEveryRow()
    {
        const QString text = describePolicy();
        for (const auto &row : policyTable()) {
            QVERIFY2(text.contains(row.condition), qPrintable(row.rule));
            QVERIFY2(text.contains(row.why), qPrintable(row.rule));
        }
        QCOMPARE(describePlan(planStages({})), QStringLiteral("stages: grid, block, memory (rule default)"));
    }
};

QTEST_GUILESS_MAIN(TestPolicy)
#include "tst_policy.moc"

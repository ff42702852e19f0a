// SPDX-License-Identifier: MIT
// Profiles in the run store: the run made on the H100 with profiling on reads back with its
// profiles (and its analysis prompt was built from them); a profile written, updated and resumed
// survives both reading paths (event log, run.json snapshot).
#include "../../capturedprofiles.h"

#include "store/runstore.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;

class TestRunStoreProfiles : public QObject
{
    Q_OBJECT
private:
    static void compareProfiles(const KernelProfile &a, const KernelProfile &b)
    {
        QCOMPARE(a.metrics, b.metrics);
        QCOMPARE(a.note, b.note);
        QCOMPARE(a.seconds, b.seconds);
        QCOMPARE(a.device, b.device);
        QCOMPARE(a.at, b.at);
    }

private Q_SLOTS:
    void runMadeOnTheGpuReadsBack()
    {
        QString error;
        const auto run = store::openRun(QStringLiteral(KWB_TEST_DATA "/profile/run_39_GRU_h100"), &error);
        QVERIFY2(run, qPrintable(error));
        QCOMPARE(run->info.settings.value(QStringLiteral("profile")).toBool(), true);
        const Candidate *seed = run->candidate(QStringLiteral("c0002"));
        const Candidate *rewrite = run->candidate(QStringLiteral("c0003"));
        QVERIFY(seed && seed->profile && seed->profile->measured());
        QVERIFY(rewrite && rewrite->profile && rewrite->profile->measured());
        QVERIFY(seed->profile->note.startsWith(QStringLiteral("profiled the first 64 kernel launches")));
        QVERIFY(seed->profile->seconds > 20 && seed->profile->seconds < 60);
        QCOMPARE(rooflineOf(seed->profile->metrics).position(), QStringLiteral("memory-bound at 1.3% of peak bandwidth"));
        QCOMPARE(rooflineOf(rewrite->profile->metrics).position(), QStringLiteral("compute-bound at 24% of peak FP32"));
        QVERIFY(!run->candidate(QStringLiteral("c0001"))->profile); // the baseline is not profiled
        // The analysis prompt that was sent carries exactly the stored profile's text.
        const auto analysis = store::readExchange(QStringLiteral(KWB_TEST_DATA "/profile/run_39_GRU_h100"),
                                                  QStringLiteral("x0002"), &error);
        QVERIFY2(analysis, qPrintable(error));
        QCOMPARE(analysis->callType, QStringLiteral("algorithm_analysis_seed1"));
        QVERIFY(analysis->messages.last().content.contains(
            QStringLiteral("## Profiler metrics (Nsight Compute)\n\n") + profilePromptText(*seed->profile) + QStringLiteral("\n\n## The kernel")));
    }

    void profileSurvivesUpdateAndResume()
    {
        QTemporaryDir tmp;
        RunInfo info;
        info.taskName = QStringLiteral("39_GRU");
        QString error;
        QString dir;
        KernelProfile measured = test::capturedProfile(QStringLiteral("gru39_seed"));
        measured.seconds = 31.6;
        measured.at = QDateTime::fromString(QStringLiteral("2026-11-24T21:52:00.000Z"), Qt::ISODateWithMs);
        {
            auto w = store::RunWriter::create(tmp.path(), info, &error);
            QVERIFY2(w, qPrintable(error));
            dir = w->directory();
            Candidate c;
            c.id = w->nextCandidateId();
            c.label = QStringLiteral("seed1");
            QVERIFY(w->addCandidate(c, QStringLiteral("class ModelNew: pass\n")));
            c.profile = KernelProfile();
            c.profile->note = QStringLiteral("not profiled: no GPU");
            QVERIFY(w->updateCandidate(c));
            c.profile = measured; // last one wins
            QVERIFY(w->updateCandidate(c));
        }
        // The writer's destructor wrote run.json: the snapshot path.
        auto snap = store::openRun(dir, &error);
        QVERIFY2(snap, qPrintable(error));
        QVERIFY(snap->candidates.first().profile);
        compareProfiles(*snap->candidates.first().profile, measured);
        // Without the snapshot: the event log alone.
        QVERIFY(QFile::remove(dir + QStringLiteral("/run.json")));
        auto log = store::openRun(dir, &error);
        QVERIFY2(log, qPrintable(error));
        compareProfiles(*log->candidates.first().profile, measured);
        // Resume (what `kwb run --resume` does): the profile is there before anything runs.
        auto resumed = store::RunWriter::resume(dir, &error);
        QVERIFY2(resumed, qPrintable(error));
        compareProfiles(*resumed->run().candidates.first().profile, measured);
    }
};

QTEST_GUILESS_MAIN(TestRunStoreProfiles)
#include "tst_runstore_profiles.moc"

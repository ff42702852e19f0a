// SPDX-License-Identifier: MIT
// Roofline arithmetic and the before/after comparison on real Nsight Compute captures (H100), the
// profile's JSON form inside a candidate, and reading runs made before profiles were stored.
#include "../../capturedprofiles.h"

#include "model/json.h"
#include "model/profile.h"

#include <QTest>

#include <cmath>

using namespace kwb;

namespace {

double sum(const QList<double> &v)
{
    double s = 0;
    for (double x : v)
        s += x;
    return s;
}

double weighted(const QList<double> &v, const QList<double> &w)
{
    double s = 0, ws = 0;
    for (int i = 0; i < v.size() && i < w.size(); ++i) {
        s += v[i] * w[i];
        ws += w[i];
    }
    return s / ws;
}

bool near(double a, double b, double rel = 1e-9)
{
    return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

} // namespace

class TestProfile : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rooflineFromRealCapture_data()
    {
        QTest::addColumn<QString>("capture");
        QTest::addColumn<int>("bound");
        QTest::addColumn<QString>("position");
        QTest::addColumn<bool>("partial");
        // The demo's naive per-step seed: 64 launches of ~3,000 profiled, low intensity.
        QTest::newRow("39_GRU seed") << "gru39_seed" << int(RooflineBound::Memory)
                                     << "memory-bound at 1.3% of peak bandwidth" << true;
        // The showcase cluster kernel: W_hh in registers, almost no DRAM traffic, FMA-heavy.
        QTest::newRow("39_GRU showcase") << "gru39_showcase" << int(RooflineBound::Compute)
                                         << "compute-bound at 24% of peak FP32" << false;
        // Level 1: Triton ReLU (reads and writes, no FLOPs) and cuBLAS's fp32 GEMM at N = 256.
        QTest::newRow("1_ReLU triton") << "relu1_triton" << int(RooflineBound::Memory)
                                       << "memory-bound at 2.6% of peak bandwidth" << false;
        QTest::newRow("3_Matmul cuBLAS") << "matmul3_cublas" << int(RooflineBound::Compute)
                                         << "compute-bound at 4.9% of peak FP32" << false;
    }
    void rooflineFromRealCapture()
    {
        QFETCH(QString, capture);
        QFETCH(int, bound);
        QFETCH(QString, position);
        QFETCH(bool, partial);
        QString error;
        const QMap<QString, double> m = test::parseCapturedCsv(capture, &error);
        QVERIFY2(!m.isEmpty(), qPrintable(error));
        const Roofline r = rooflineOf(m);
        QCOMPARE(int(r.bound), bound);
        QCOMPARE(r.position(), position);
        QCOMPARE(r.partial, partial);

        // The same figures straight from the CSV, without the worker's parser.
        const auto col = test::csvColumns(capture);
        const QList<double> dur = col.value(QStringLiteral("gpu__time_duration.sum"));
        QVERIFY(!dur.isEmpty());
        const double seconds = sum(dur) * 1e-9;
        const double bytes = sum(col.value(QStringLiteral("dram__bytes.sum")));
        const double flops = sum(col.value(QStringLiteral("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum")))
            + sum(col.value(QStringLiteral("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum")))
            + 2 * sum(col.value(QStringLiteral("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum")));
        const double peakBw = col.value(QStringLiteral("dram__bytes.sum.peak_sustained")).value(0)
            * weighted(col.value(QStringLiteral("dram__cycles_elapsed.avg.per_second")), dur);
        const double peakFlop = 2 * col.value(QStringLiteral("sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained")).value(0)
            * weighted(col.value(QStringLiteral("smsp__cycles_elapsed.avg.per_second")), dur);
        QVERIFY(near(r.bandwidth, bytes / seconds));
        QVERIFY(near(r.flopRate, flops / seconds));
        QVERIFY(near(r.peakBandwidth, peakBw));
        QVERIFY(near(r.peakFlopRate, peakFlop));
        QVERIFY(flops == 0 ? r.intensity == 0 : near(r.intensity, flops / bytes));
        // The H100's HBM3 peak as the device reports it (1280 B/cycle x 2.62 GHz), not a typed-in figure.
        QVERIFY2(r.peakBandwidth > 3.3e12 && r.peakBandwidth < 3.4e12, qPrintable(QString::number(r.peakBandwidth)));
        QVERIFY(r.details().startsWith(position + QStringLiteral(": DRAM ")));
        QCOMPARE(r.details().endsWith(QStringLiteral("(over the profiled launches only)")), partial);
    }

    void workerEvalCarriesTheSameProfile()
    {
        // The worker's own eval --profile of the showcase kernel: same kernel, same roofline side.
        const EvalResult e = test::capturedEval(QStringLiteral("gru39_showcase"));
        QVERIFY(e.correct());
        const KernelProfile p = KernelProfile::fromEval(e);
        QVERIFY(p.measured());
        QVERIFY(p.seconds > 1 && p.seconds < 60); // profile_seconds as the worker measured it
        const Roofline r = rooflineOf(p.metrics);
        QCOMPARE(r.bound, RooflineBound::Compute);
        QVERIFY(r.computeFraction() > 0.2 && r.computeFraction() < 0.3);
        // A memory-bound level-1 kernel: ReLU reads and writes, no FLOPs.
        const Roofline relu = rooflineOf(KernelProfile::fromEval(test::capturedEval(QStringLiteral("relu1_triton"))).metrics);
        QCOMPARE(relu.bound, RooflineBound::Memory);
        QCOMPARE(relu.flops, 0.0);
    }

    void missingInputsGiveNoRoofline()
    {
        QMap<QString, double> m{{QStringLiteral("gpu_time_ms"), 1.0}, {QStringLiteral("dram_bytes"), 1e6}};
        QVERIFY(!rooflineOf(m).isValid()); // no device peaks: nothing to compare against
        QVERIFY(std::isnan(rooflineOf(m).fractionOfLimit()));
        QVERIFY(rooflineOf({}).position().isEmpty());
        KernelProfile none;
        none.note = QStringLiteral("not profiled: no GPU");
        QCOMPARE(profilePromptText(none), QStringLiteral("not profiled: no GPU"));
    }

    void compareSeedWithShowcase()
    {
        const KernelProfile seed = test::capturedProfile(QStringLiteral("gru39_seed"));
        const KernelProfile showcase = test::capturedProfile(QStringLiteral("gru39_showcase"));
        QVERIFY(seed.measured() && showcase.measured());
        const QList<ProfileRow> rows = compareProfiles(seed, showcase);
        auto row = [&rows](const QString &key) {
            for (const auto &r : rows)
                if (r.key == key)
                    return r;
            return ProfileRow();
        };
        QCOMPARE(rows.first().key, QStringLiteral("roofline"));
        QCOMPARE(rows.first().beforeText, QStringLiteral("memory-bound at 1.3% of peak bandwidth"));
        QCOMPARE(rows.first().afterText, QStringLiteral("compute-bound at 24% of peak FP32"));
        QCOMPARE(rows.first().change, ProfileRow::Change::Changed); // another roof
        QCOMPARE(changeText(rows.first()), QStringLiteral("other roof"));
        // The seed hit the launch bound: its totals are lower bounds, marked and not judged.
        QCOMPARE(row(QStringLiteral("kernel_launches")).beforeText, QStringLiteral("≥ 64"));
        QCOMPARE(row(QStringLiteral("kernel_launches")).afterText, QStringLiteral("2"));
        QCOMPARE(row(QStringLiteral("kernel_launches")).change, ProfileRow::Change::None);
        // Per-kernel figures compare: occupancy doubled (better), registers moved (no direction).
        QCOMPARE(row(QStringLiteral("achieved_occupancy_pct")).change, ProfileRow::Change::Better);
        QCOMPARE(row(QStringLiteral("sm_throughput_pct")).change, ProfileRow::Change::Better);
        QCOMPARE(row(QStringLiteral("registers_per_thread")).change, ProfileRow::Change::Changed);
        QCOMPARE(row(QStringLiteral("registers_per_thread")).beforeText, QStringLiteral("136"));
        QCOMPARE(row(QStringLiteral("registers_per_thread")).afterText, QStringLiteral("254"));
        QVERIFY(changeText(row(QStringLiteral("registers_per_thread"))).startsWith(u'+'));
        // The device did not change: its peaks are equal and unmarked.
        QCOMPARE(row(QStringLiteral("dram_peak_bytes_per_cycle")).change, ProfileRow::Change::None);
        QCOMPARE(row(QStringLiteral("achieved_flop_rate")).change, ProfileRow::Change::Changed);
        // The same profile against itself: nothing marked.
        for (const auto &r : compareProfiles(showcase, showcase))
            QCOMPARE(r.change, ProfileRow::Change::None);
    }

    void promptTextLeadsWithTheRoofline()
    {
        KernelProfile p = KernelProfile::fromEval(test::capturedEval(QStringLiteral("gru39_showcase")));
        const QString text = profilePromptText(p);
        const QStringList lines = text.split(u'\n');
        QVERIFY2(lines.value(0).startsWith(QStringLiteral("Nsight Compute, one forward call (on cuda:0 NVIDIA H100 80GB HBM3; profiled in ")),
                 qPrintable(text));
        QVERIFY2(lines.value(1).startsWith(QStringLiteral("- roofline: compute-bound at 24% of peak FP32: DRAM ")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("- GPU time per forward (gpu_time_ms): 2.065 ms")));
        QVERIFY(text.contains(QStringLiteral("- registers per thread (registers_per_thread): 254")));
    }

    void candidateJsonRoundTrip()
    {
        Candidate c;
        c.id = QStringLiteral("c0002");
        c.profile = test::capturedProfile(QStringLiteral("gru39_seed"));
        c.profile->seconds = 27.4;
        c.profile->at = QDateTime::fromString(QStringLiteral("2026-11-24T21:35:00.000Z"), Qt::ISODateWithMs);
        const Candidate back = json::candidateFromJson(json::toJson(c));
        QVERIFY(back.profile);
        QCOMPARE(back.profile->metrics, c.profile->metrics);
        QCOMPARE(back.profile->note, c.profile->note);
        QCOMPARE(back.profile->seconds, 27.4);
        QCOMPARE(back.profile->device, c.profile->device);
        QCOMPARE(back.profile->at, c.profile->at);
        // Measured nothing: the reason survives, and it still counts as profiled.
        Candidate n;
        n.profile = KernelProfile();
        n.profile->note = QStringLiteral("not profiled: no GPU");
        const Candidate nb = json::candidateFromJson(json::toJson(n));
        QVERIFY(nb.profile && !nb.profile->measured());
        QCOMPARE(nb.profile->note, QStringLiteral("not profiled: no GPU"));
        QVERIFY(std::isnan(nb.profile->seconds));
    }

    void runsWithoutProfilesReadAsBefore()
    {
        // A candidate as the demo runs store it (no "profile" key, eval "not requested").
        const QJsonObject old = QJsonDocument::fromJson(R"({"id":"c0002","kind":"seed","status":"evaluated",
            "eval":{"status":"ok","profile":{},"profile_note":"not profiled: not requested"}})").object();
        const Candidate c = json::candidateFromJson(old);
        QVERIFY(!c.profile);
        QVERIFY(!c.shownProfile()); // "not requested" is no profile to show
        QVERIFY(!json::toJson(c).contains(QStringLiteral("profile")));
        // kwb eval --profile on a CPU: the evaluation's reason is shown.
        Candidate cpu = c;
        cpu.eval->profileNote = QStringLiteral("not profiled: no GPU");
        QCOMPARE(cpu.shownProfile()->note, QStringLiteral("not profiled: no GPU"));
    }
};

QTEST_GUILESS_MAIN(TestProfile)
#include "tst_profile.moc"

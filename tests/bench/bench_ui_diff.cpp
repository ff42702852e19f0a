// SPDX-License-Identifier: MIT
// How long switching the diff view between two 1,000-line kernels takes: the diff itself (kwb_diff)
// and the whole DiffView path (diff + filling both QScintilla editors, markers, boxes, first paint),
// side by side and inline. Prints figures; not a test. Runs offscreen unless QT_QPA_PLATFORM is set.
// Usage: kwb_bench_ui_diff [LINES=1000] [REPEATS=20]
#include "diff/diffview.h"
#include "diff/textdiff.h"

#include <QApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>

using namespace kwb;

namespace {

/// A Triton-like kernel of `lines` lines; `variant` edits every 37th line, drops every 101st and
/// inserts a line after every 53rd (about 50 hunks against variant 0).
QString kernel(int lines, int variant)
{
    QString s = QStringLiteral("import torch\nimport triton\nimport triton.language as tl\n");
    for (int i = 4; i <= lines; ++i) {
        if (variant && i % 37 == 0)
            s += QStringLiteral("    acc_%1 = tl.dot(a_%1, b_%2, acc_%1, allow_tf32=False)\n").arg(i).arg(variant);
        else if (variant && i % 101 == 0)
            continue;
        else
            s += QStringLiteral("    acc_%1 = tl.dot(a_%1, b, acc_%1)  # k-loop step %1\n").arg(i);
        if (variant && i % 53 == 0)
            s += QStringLiteral("    tl.debug_barrier()  # variant %1\n").arg(variant);
    }
    return s;
}

struct Stats {
    double median, min, max;
};

template<typename Fn>
Stats measure(int repeats, Fn fn)
{
    QList<double> ms;
    for (int i = 0; i < repeats; ++i) {
        QElapsedTimer t;
        t.start();
        fn(i);
        ms.append(t.nsecsElapsed() / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    return {ms.at(ms.size() / 2), ms.first(), ms.last()};
}

void print(const char *what, const Stats &s)
{
    std::printf("%-48s median %7.2f ms   min %7.2f   max %7.2f\n", what, s.median, s.min, s.max);
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const int lines = argc > 1 ? QString::fromLocal8Bit(argv[1]).toInt() : 1000;
    const int repeats = argc > 2 ? QString::fromLocal8Bit(argv[2]).toInt() : 20;

    // A run of three candidates whose code is held in memory: switching alternates the pairs.
    Run run;
    for (int i = 0; i < 3; ++i) {
        Candidate c;
        c.id = QStringLiteral("c%1").arg(i + 1, 4, 10, QLatin1Char('0'));
        c.kind = i == 0 ? CandidateKind::Seed : CandidateKind::Repair;
        c.parentId = i == 0 ? QString() : QStringLiteral("c0001");
        run.candidates.append(c);
    }
    QHash<QString, QString> code;
    for (int i = 0; i < 3; ++i)
        code.insert(run.candidates.at(i).id, kernel(lines, i));
    const QString a = code.value(QStringLiteral("c0001"));
    const QString b = code.value(QStringLiteral("c0002"));
    const diff::DiffResult d = diff::diffTexts(a, b);
    std::printf("two kernels of %d / %d lines: %lld hunks, %d changed, %d inserted, %d deleted; %d repeats\n",
                int(d.leftLines.size()), int(d.rightLines.size()), static_cast<long long>(d.hunks.size()), d.changed,
                d.inserted, d.deleted, repeats);

    print("diff only (kwb_diff, word intra-line)", measure(repeats, [&](int) { diff::diffTexts(a, b); }));
    diff::Options chars;
    chars.intraLine = diff::Granularity::Character;
    print("diff only (kwb_diff, character intra-line)", measure(repeats, [&](int) { diff::diffTexts(a, b, chars); }));

    DiffView view;
    view.resize(1400, 900);
    view.setCodeProvider([&code](const Candidate &c) { return code.value(c.id); });
    view.setRun(run, QString());
    view.show();
    QCoreApplication::processEvents();
    auto switchTo = [&](int i) {
        // Alternate c0001→c0002 and c0001→c0003 so every switch is a real change of content.
        view.compareCandidates(QStringLiteral("c0001"), i % 2 ? QStringLiteral("c0003") : QStringLiteral("c0002"));
    };
    print("switch, side by side (diff + populate)", measure(repeats, switchTo));
    print("switch, side by side + paint", measure(repeats, [&](int i) {
              switchTo(i);
              view.repaint();
              QCoreApplication::processEvents();
          }));
    view.setMode(DiffView::Mode::Inline);
    print("switch, inline (diff + populate)", measure(repeats, switchTo));
    print("switch, inline + paint", measure(repeats, [&](int i) {
              switchTo(i);
              view.repaint();
              QCoreApplication::processEvents();
          }));
    print("next change (scroll both editors)", measure(repeats, [&](int) {
              if (!view.nextChange())
                  while (view.previousChange()) {
                  }
          }));
    return 0;
}

// SPDX-License-Identifier: MIT
// kernel-workbench [--demo] [--replay-demo] [RUN_DIR]: the workbench GUI. Argument handling only; the window is kwb_ui.
#include "llm/providerconfig.h"
#include "mainwindow.h"
#include "suite/suitedock.h"
#include "runcontroller.h"
#include "runsdock.h"

#include "env/locations.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QSize>
#include <QTimer>

#include <cstdio>

namespace {

/// True when some cloud provider has an API key (env var or keys file). Local servers need none
/// and do not count: without a key the README's command should show something at once (the demo).
bool anyLlmKey()
{
    for (const auto &p : kwb::llm::loadProviders())
        if (!p.apiKeyEnv.isEmpty() && kwb::llm::hasApiKey(p))
            return true;
    return false;
}

void saveScreenshot(kwb::MainWindow &w, const QString &file)
{
    if (w.grab().save(file))
        std::fprintf(stderr, "screenshot saved to %s\n", qPrintable(file));
    else
        std::fprintf(stderr, "could not save a screenshot to %s\n", qPrintable(file));
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("kernel-workbench"));
    QApplication::setApplicationName(QStringLiteral("kernel-workbench"));
    QApplication::setApplicationDisplayName(QStringLiteral("Kernel Workbench"));
    QApplication::setApplicationVersion(QStringLiteral(KWB_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("kernel-workbench"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Kernel Workbench: LLM-driven GPU kernel optimization"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption demo(QStringLiteral("demo"), QStringLiteral("Open the bundled demo run."));
    const QCommandLineOption runsDir(QStringLiteral("runs-dir"), QStringLiteral("Folder of runs to list."),
                                     QStringLiteral("DIR"));
    const QCommandLineOption themeOpt(QStringLiteral("theme"), QStringLiteral("light or dark (remembered)."),
                                      QStringLiteral("NAME"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QStringLiteral("Save a screenshot of the window to FILE before quitting."),
                                        QStringLiteral("FILE"));
    const QCommandLineOption quitAfter(QStringLiteral("quit-after-ms"),
                                       QStringLiteral("Quit after N milliseconds (for scripted screenshots)."),
                                       QStringLiteral("N"));
    const QCommandLineOption select(QStringLiteral("select"), QStringLiteral("Select this candidate once the run is open."),
                                    QStringLiteral("ID"));
    const QCommandLineOption replayDemo(QStringLiteral("replay-demo"),
                                        QStringLiteral("Start the live replay of the demo at once (1_ReLU, replay provider, gates on failures)."));
    const QCommandLineOption gatesOpt(QStringLiteral("gates"),
                                      QStringLiteral("Gate policy of --replay-demo: all, failures or none."), QStringLiteral("POLICY"));
    const QCommandLineOption sizeOpt(QStringLiteral("size"),
                                     QStringLiteral("Window size WIDTHxHEIGHT (scripted screenshots; default 1600x1000 there)."),
                                     QStringLiteral("WxH"));
    const QCommandLineOption raiseOpt(QStringLiteral("raise"),
                                      QStringLiteral("Show and raise these docks (comma-separated object names, e.g. dockDiff)."),
                                      QStringLiteral("DOCKS"));
    
    const QCommandLineOption suiteOpt(QStringLiteral("suite"), QStringLiteral("Open this suite folder (and its first task's run)."),
                                      QStringLiteral("DIR"));
    parser.addOptions({demo, runsDir, themeOpt, screenshot, quitAfter, select, replayDemo, gatesOpt, suiteOpt, sizeOpt, raiseOpt});
    parser.addPositionalArgument(QStringLiteral("RUN_DIR"), QStringLiteral("A run directory to open."), QStringLiteral("[RUN_DIR]"));
    parser.process(app);

    kwb::MainWindow window;
    const bool scripted = parser.isSet(screenshot) || parser.isSet(quitAfter);
    window.setInteractive(!scripted);
    if (parser.isSet(themeOpt))
        window.setTheme(kwb::theme::fromName(parser.value(themeOpt)));
    window.runsDock()->setRunsDir(kwb::env::runsDir(parser.value(runsDir)));
    window.runsDock()->refresh();
    QSize size = scripted ? QSize(1600, 1000) : QSize(); // screenshots compare across runs: one size, whatever was remembered
    if (parser.isSet(sizeOpt)) {
        const QStringList wh = parser.value(sizeOpt).split(u'x');
        size = wh.size() == 2 ? QSize(wh[0].toInt(), wh[1].toInt()) : QSize();
        if (!size.isValid() || size.isEmpty()) {
            std::fprintf(stderr, "kernel-workbench: --size takes WIDTHxHEIGHT, e.g. 1280x720\n");
            return 2;
        }
    }
    if (size.isValid())
        window.resize(size);
    window.show();
    // The first evaluation should not pay for `import torch`: start the warm worker now, off the UI thread.
    QTimer::singleShot(0, &window, [&window] { window.runController()->prestart(); });

    if (parser.isSet(raiseOpt)) {
        const QStringList names = parser.value(raiseOpt).split(u',', Qt::SkipEmptyParts);
        QObject::connect(&window, &kwb::MainWindow::runOpened, &window, [&window, names] {
            for (const QString &name : names)
                if (auto *d = window.findChild<QDockWidget *>(name.trimmed())) {
                    d->show();
                    d->raise();
                }
        });
    }
    if (parser.isSet(select)) {
        const QString id = parser.value(select);
        QObject::connect(&window, &kwb::MainWindow::runOpened, &window, [&window, id] { window.selectCandidate(id); });
    }
    QObject::connect(&window, &kwb::MainWindow::runOpenFailed, &window, [](const QString &, const QString &error) {
        std::fprintf(stderr, "kernel-workbench: %s\n", qPrintable(error));
    });

    const QStringList args = parser.positionalArguments();
    if (parser.isSet(replayDemo)) {
        // The live run is what shows: nothing else is opened (a late load would cover it).
    } else if (parser.isSet(suiteOpt)) {
        QString error;
        if (window.suiteDock()->openSuite(parser.value(suiteOpt), &error))
            window.suiteDock()->openRow(0);
        else
            std::fprintf(stderr, "kernel-workbench: %s\n", qPrintable(error));
    } else if (!args.isEmpty()) {
        window.openRun(args.first());
    } else if (parser.isSet(demo) || !anyLlmKey()) {
        QString why;
        if (kwb::MainWindow::demoRunDirectory(&why).isEmpty())
            std::fprintf(stderr, "kernel-workbench: %s\n", qPrintable(why));
        if (!window.openDemo() && !parser.isSet(demo) && !kwb::MainWindow::lastRunDirectory().isEmpty())
            window.openRun(kwb::MainWindow::lastRunDirectory());
    } else if (!kwb::MainWindow::lastRunDirectory().isEmpty()) {
        window.openRun(kwb::MainWindow::lastRunDirectory());
    }

    if (parser.isSet(replayDemo)) {
        kwb::NewRunSettings settings = window.demoReplaySettings();
        if (parser.isSet(gatesOpt)) {
            const auto g = kwb::pipeline::gatePolicyFromString(parser.value(gatesOpt));
            if (!g) {
                std::fprintf(stderr, "kernel-workbench: --gates takes all, failures or none\n");
                return 2;
            }
            settings.gatePolicy = *g;
        }
        // After the recorded run (if any) is on screen, so the live run replaces it, not the reverse.
        QTimer::singleShot(0, &window, [&window, settings] {
            QString error;
            if (!window.startRun(settings, &error))
                std::fprintf(stderr, "kernel-workbench: %s\n", qPrintable(error));
        });
    }

    if (parser.isSet(quitAfter)) {
        const QString file = parser.value(screenshot);
        QTimer::singleShot(parser.value(quitAfter).toInt(), &window, [&window, file] {
            if (!file.isEmpty())
                saveScreenshot(window, file);
            window.close();
        });
    } else if (parser.isSet(screenshot)) {
        const QString file = parser.value(screenshot);
        QObject::connect(&window, &kwb::MainWindow::runOpened, &window, [&window, file] {
            // One more turn of the event loop so the views have laid out the new run.
            QTimer::singleShot(300, &window, [&window, file] { saveScreenshot(window, file); });
        });
    }
    return app.exec();
}

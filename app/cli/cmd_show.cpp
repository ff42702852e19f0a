// SPDX-License-Identifier: MIT
// `kwb show RUN [--json | --markdown | --html FILE]`: print a run (the candidate tree by default).
#include "commands.h"

#include "report/report.h"
#include "store/runstore.h"

#include <QJsonDocument>
#include <QSaveFile>

namespace {

void help(QTextStream &s)
{
    s << "usage: kwb show RUN [--json | --markdown | --html FILE]\n\n"
         "Prints the run directory RUN: by default its candidate tree, one line per candidate\n"
         "(id, kind, label, status mark, median ms ± std, speedup vs eager and CUDA graph, max error,\n"
         "verdict count).\n\n"
         "  --json         the whole run as JSON (run.json's shape)\n"
         "  --markdown     a Markdown report on stdout\n"
         "  --html FILE    a self-contained HTML report written to FILE ('-' for stdout)\n\n"
         "exit codes: 0 shown, 2 bad arguments, 3 RUN is missing, foreign or damaged\n";
    s.flush();
}

} // namespace

int kwb::cli::runShow(const QStringList &args)
{
    enum class Mode { Tree, Json, Markdown, Html } mode = Mode::Tree;
    QString runDir, htmlFile;
    int modes = 0;
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            help(out());
            return Success;
        } else if (a == QLatin1String("--json")) {
            mode = Mode::Json;
            ++modes;
        } else if (a == QLatin1String("--markdown")) {
            mode = Mode::Markdown;
            ++modes;
        } else if (a == QLatin1String("--html")) {
            if (i + 1 >= args.size()) {
                err() << "kwb show: --html needs a FILE\n";
                help(err());
                return UsageError;
            }
            mode = Mode::Html;
            htmlFile = args[++i];
            ++modes;
        } else if (a.startsWith(QLatin1Char('-')) && a != QLatin1String("-")) {
            err() << "kwb show: unknown option " << a << "\n";
            help(err());
            return UsageError;
        } else if (runDir.isEmpty()) {
            runDir = a;
        } else {
            err() << "kwb show: one RUN only (got " << runDir << " and " << a << ")\n";
            return UsageError;
        }
    }
    if (runDir.isEmpty() || modes > 1) {
        err() << (runDir.isEmpty() ? "kwb show: missing RUN\n" : "kwb show: --json, --markdown and --html exclude each other\n");
        help(err());
        return UsageError;
    }

    QString error;
    QStringList warnings;
    // Only --json prints prompts and responses; the tree and reports need the exchanges' headers.
    const auto run = store::openRun(runDir, &error, &warnings, store::OpenOptions{.exchangeBodies = mode == Mode::Json});
    if (!run) {
        err() << "kwb show: " << error << "\n";
        err().flush();
        return InputError;
    }
    for (const QString &w : std::as_const(warnings))
        err() << "kwb show: warning: " << w << "\n";
    err().flush();

    switch (mode) {
    case Mode::Tree:
        out() << report::renderTextTree(*run);
        break;
    case Mode::Json:
        out() << QString::fromUtf8(QJsonDocument(store::runToJson(*run)).toJson(QJsonDocument::Indented));
        break;
    case Mode::Markdown:
        out() << report::renderMarkdown(*run);
        break;
    case Mode::Html: {
        const QByteArray html = report::renderHtml(*run).toUtf8();
        if (htmlFile == QLatin1String("-")) {
            out() << QString::fromUtf8(html);
            break;
        }
        QSaveFile f(htmlFile);
        if (!f.open(QIODevice::WriteOnly) || f.write(html) != html.size() || !f.commit()) {
            err() << "kwb show: cannot write " << htmlFile << ": " << f.errorString() << "\n";
            return InputError;
        }
        err() << "kwb show: wrote " << htmlFile << "\n";
        break;
    }
    }
    out().flush();
    err().flush();
    return Success;
}

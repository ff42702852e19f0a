// SPDX-License-Identifier: MIT
#pragma once

#include "commands.h"

#include <QCommandLineOption>
#include <QCommandLineParser>

#include <optional>

namespace kwb::cli {

/// Parses `kwb COMMAND ARGS...`. Empty when the command should go on; otherwise its exit code,
/// after printing the parse error (UsageError) or the help asked for with --help (Success).
inline std::optional<int> parseCommandLine(QCommandLineParser &p, const char *command, const QStringList &args)
{
    if (!p.parse(QStringList{QStringLiteral("kwb ") + QLatin1String(command)} + args)) {
        err() << "kwb " << command << ": " << p.errorText() << "\n";
        return UsageError;
    }
    if (p.isSet(QStringLiteral("help"))) {
        out() << p.helpText();
        return Success;
    }
    return std::nullopt;
}

/// Reads a sub-command's typed options and reports each bad value once, naming the command and the
/// option; ok() tells whether every value read so far was good.
class OptionReader {
public:
    OptionReader(const QCommandLineParser &parser, const char *command)
        : m_parser(parser)
        , m_command(command)
    {
    }

    int integer(const QCommandLineOption &o, int min)
    {
        bool good = false;
        const int v = m_parser.value(o).toInt(&good);
        if (!good || v < min)
            fail(o, QStringLiteral("an integer >= %1").arg(min));
        return v;
    }

    double nonNegative(const QCommandLineOption &o)
    {
        bool good = false;
        const double v = m_parser.value(o).toDouble(&good);
        if (!good || v < 0)
            fail(o, QStringLiteral("a number >= 0"));
        return v;
    }

    /// auto, cpu, cuda or cuda:N.
    QString device(const QCommandLineOption &o)
    {
        const QString d = m_parser.value(o);
        if (d != QLatin1String("auto") && d != QLatin1String("cpu") && !d.startsWith(QLatin1String("cuda"))) {
            err() << "kwb " << m_command << ": --device must be auto, cpu or cuda, got '" << d << "'\n";
            m_ok = false;
        }
        return d;
    }

    bool ok() const { return m_ok; }

private:
    void fail(const QCommandLineOption &o, const QString &expected)
    {
        err() << "kwb " << m_command << ": --" << o.names().first() << " needs " << expected << ", got '"
              << m_parser.value(o) << "'\n";
        m_ok = false;
    }

    const QCommandLineParser &m_parser;
    const char *m_command;
    bool m_ok = true;
};

} // namespace kwb::cli

// SPDX-License-Identifier: MIT
#include "store/runstore.h"

#include "model/json.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <QSaveFile>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kwb::store {

namespace {

const QString kEvents = QStringLiteral("events.jsonl");
const QString kSnapshot = QStringLiteral("run.json");
const QString kLock = QStringLiteral("writer.lock");
constexpr qint64 kSnapshotIntervalMs = 2000;

void setError(QString *error, const QString &text)
{
    if (error)
        *error = text;
}

/// 1-based line of a byte offset, for "damaged JSON in FILE line N".
int lineOfOffset(const QByteArray &data, qsizetype offset)
{
    offset = std::clamp<qsizetype>(offset, 0, data.size());
    return int(std::count(data.constBegin(), data.constBegin() + offset, '\n')) + 1;
}

/// Ids end up in file names: allow only a plain, safe token.
bool isSafeId(const QString &id)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$"));
    return re.match(id).hasMatch();
}

/// A relative path that stays inside the run directory.
bool isSafeRelativePath(const QString &rel)
{
    if (rel.isEmpty() || QDir::isAbsolutePath(rel) || rel.contains(QLatin1Char('\\')))
        return false;
    const QString clean = QDir::cleanPath(rel);
    return clean != QLatin1String("..") && !clean.startsWith(QLatin1String("../")) && clean != QLatin1String(".");
}

QString safeToken(const QString &s)
{
    QString out;
    for (const QChar ch : s)
        out += (ch.isLetterOrNumber() && ch.unicode() < 128) || ch == u'.' || ch == u'-' || ch == u'+' ? ch : u'_';
    while (out.startsWith(u'.'))
        out.remove(0, 1);
    out.truncate(60);
    return out.isEmpty() ? QStringLiteral("unknown") : out;
}

void fsyncPath(const QString &path)
{
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

/// Writes a file atomically (QSaveFile: temp file, fsync, rename) and makes the rename durable.
bool writeAtomically(const QString &path, const QByteArray &data, QString *error)
{
    const QFileInfo fi(path);
    if (!QDir().mkpath(fi.absolutePath())) {
        setError(error, QStringLiteral("cannot create directory %1").arg(fi.absolutePath()));
        return false;
    }
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(data) != data.size() || !f.commit()) {
        setError(error, QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
        return false;
    }
    // No fsync of the directory here: the event that refers to this file is fsync'd next, and a
    // journaling file system (ext4, xfs) commits the rename with it. Halves the fsyncs per call.
    return true;
}

bool writeAll(int fd, const char *p, qsizetype n)
{
    while (n > 0) {
        const ssize_t w = ::write(fd, p, size_t(n));
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        p += w;
        n -= w;
    }
    return true;
}

/// Reads "seq" from a line that starts the way the writer writes them: {"seq":123,...
/// Returns -1 when the line has another shape (then it must be parsed in full).
qint64 quickSeq(QByteArrayView line)
{
    static constexpr QByteArrayView prefix("{\"seq\":");
    if (!line.startsWith(prefix))
        return -1;
    qint64 v = 0;
    qsizetype i = prefix.size();
    const qsizetype start = i;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9' && i - start < 18)
        v = v * 10 + (line[i++] - '0');
    return i > start && i < line.size() && line[i] == ',' ? v : -1;
}

/// An exchange without its (large) bodies: what events.jsonl and run.json hold.
QJsonObject exchangeHeader(const LlmExchange &x)
{
    QJsonObject o = json::toJson(x);
    o.remove(QStringLiteral("messages"));
    o.remove(QStringLiteral("response"));
    o.remove(QStringLiteral("reasoning"));
    return o;
}

QString exchangePath(const QString &runDir, const QString &id)
{
    return QStringLiteral("%1/llm/%2.json").arg(runDir, id);
}

QString newerSchemaError(const QString &dir, int version)
{
    return QStringLiteral("run %1 has schema version %2, newer than this build supports (%3); "
                          "open it with a newer Kernel Workbench")
        .arg(dir)
        .arg(version)
        .arg(kSchemaVersion);
}

/// Builds a Run from events and/or the snapshot; shared by openRun and RunWriter::resume.
class Loader {
public:
    explicit Loader(QString dir) : m_dir(std::move(dir)) {}

    Run run;
    QStringList warnings;
    QString error;
    qint64 lastSeq = 0;
    qint64 validEventBytes = -1; ///< size of events.jsonl up to the last complete event; -1: none
    bool hadEvents = false;
    bool newerSchema = false;

    bool load()
    {
        const QFileInfo di(m_dir);
        if (!di.exists()) {
            error = QStringLiteral("no such directory: %1").arg(m_dir);
            return false;
        }
        if (!di.isDir()) {
            error = QStringLiteral("not a directory: %1").arg(m_dir);
            return false;
        }
        const QString eventsPath = m_dir + u'/' + kEvents;
        const QString snapPath = m_dir + u'/' + kSnapshot;
        hadEvents = QFileInfo::exists(eventsPath);
        const bool hasSnapshot = QFileInfo::exists(snapPath);
        if (!hadEvents && !hasSnapshot) {
            error = QStringLiteral("not a Kernel Workbench run: no events.jsonl or run.json in %1").arg(m_dir);
            return false;
        }
        if (!hadEvents)
            return loadSnapshot(snapPath, nullptr);

        QFile f(eventsPath);
        if (!f.open(QIODevice::ReadOnly)) {
            error = QStringLiteral("cannot read %1: %2").arg(eventsPath, f.errorString());
            return false;
        }
        const QByteArray data = f.readAll();
        splitLines(data);
        if (!checkTornTail(data))
            return false;

        // Fast path: a current snapshot plus the few events after it (quick seq scan from the end).
        if (hasSnapshot && !m_lines.isEmpty()) {
            qsizetype first = m_lines.size();
            bool quick = true;
            qint64 snapSeq = -1;
            Loader snap(m_dir);
            if (snap.loadSnapshot(snapPath, &snapSeq) && snapSeq >= 0) {
                while (first > 0) {
                    const qint64 s = quickSeq(m_lines[first - 1]);
                    if (s < 0) {
                        quick = false;
                        break;
                    }
                    if (s <= snapSeq)
                        break;
                    --first;
                }
                if (quick && first > 0 && quickSeq(m_lines[first - 1]) == snapSeq) {
                    run = std::move(snap.run);
                    warnings += snap.warnings;
                    lastSeq = snapSeq;
                    index();
                    return replay(first);
                }
            } else if (snap.newerSchema) {
                error = snap.error;
                return false;
            } else if (!snap.error.isEmpty()) {
                warnings << QStringLiteral("ignored %1 (%2); rebuilt the run from %3").arg(kSnapshot, snap.error, kEvents);
            }
        }
        return replay(0);
    }

    /// Loads run.json. When `seq` is given, a damaged snapshot is not fatal (the events decide).
    bool loadSnapshot(const QString &path, qint64 *seq)
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) {
            error = QStringLiteral("cannot read %1: %2").arg(path, f.errorString());
            return false;
        }
        const QByteArray data = f.readAll();
        QJsonParseError pe;
        const QJsonDocument doc = QJsonDocument::fromJson(data, &pe);
        if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
            error = QStringLiteral("damaged JSON in %1 line %2: %3")
                        .arg(path)
                        .arg(lineOfOffset(data, pe.offset))
                        .arg(pe.error != QJsonParseError::NoError ? pe.errorString()
                                                                  : QStringLiteral("not an object"));
            return false;
        }
        const QJsonObject o = doc.object();
        const int version = o.value("schema_version").toInt(0);
        if (version > kSchemaVersion) {
            error = newerSchemaError(m_dir, version);
            newerSchema = true;
            return false;
        }
        if (version < 1 || !o.value("info").isObject()) {
            error = QStringLiteral("not a Kernel Workbench run: %1 has no schema_version or info").arg(path);
            return false;
        }
        run.info = json::runInfoFromJson(o.value("info").toObject());
        const QJsonArray cs = o.value("candidates").toArray();
        run.candidates.reserve(cs.size());
        for (const auto &v : cs)
            run.candidates.append(json::candidateFromJson(v.toObject()));
        const QJsonArray xs = o.value("exchanges").toArray();
        run.exchanges.reserve(xs.size());
        for (const auto &v : xs)
            run.exchanges.append(json::exchangeFromJson(v.toObject()));
        for (const auto &v : o.value("gates").toArray())
            run.gates.append(json::gateRecordFromJson(v.toObject()));
        if (seq)
            *seq = o.value("last_seq").toInteger(-1);
        return true;
    }

private:
    QString m_dir;
    QList<QByteArrayView> m_lines; ///< complete, non-empty lines of events.jsonl
    QList<int> m_lineNumbers;
    QList<qsizetype> m_lineEnds; ///< byte offset just after each line's newline
    QHash<QString, qsizetype> m_candidateIndex;
    QHash<QString, qsizetype> m_exchangeIndex;

    void splitLines(const QByteArray &data)
    {
        qsizetype pos = 0;
        int number = 0;
        while (pos < data.size()) {
            qsizetype nl = data.indexOf('\n', pos);
            ++number;
            const bool complete = nl >= 0;
            if (!complete)
                nl = data.size();
            QByteArrayView line(data.constData() + pos, nl - pos);
            if (!line.trimmed().isEmpty()) {
                m_lines.append(line);
                m_lineNumbers.append(number);
                m_lineEnds.append(complete ? nl + 1 : -1);
            }
            pos = nl + 1;
        }
    }

    /// A last line that is torn (no newline) or unparsable is what a kill mid-write leaves: drop it.
    bool checkTornTail(const QByteArray &data)
    {
        if (m_lines.isEmpty()) {
            validEventBytes = 0;
            return true;
        }
        const QByteArrayView last = m_lines.last();
        QJsonParseError pe;
        QJsonDocument::fromJson(last.toByteArray(), &pe);
        if (pe.error != QJsonParseError::NoError || m_lineEnds.last() < 0) {
            if (pe.error != QJsonParseError::NoError) {
                warnings << QStringLiteral("ignored a truncated last line in %1/%2 (line %3, %4 bytes): "
                                           "the run was interrupted while writing it")
                                .arg(m_dir, kEvents)
                                .arg(m_lineNumbers.last())
                                .arg(last.size());
                m_lines.removeLast();
                m_lineNumbers.removeLast();
                m_lineEnds.removeLast();
            } else {
                m_lineEnds.last() = data.size(); // complete JSON, only the newline is missing
            }
        }
        validEventBytes = m_lineEnds.isEmpty() ? 0 : m_lineEnds.last();
        return true;
    }

    void index()
    {
        m_candidateIndex.reserve(run.candidates.size());
        for (qsizetype i = 0; i < run.candidates.size(); ++i)
            m_candidateIndex.insert(run.candidates[i].id, i);
        for (qsizetype i = 0; i < run.exchanges.size(); ++i)
            m_exchangeIndex.insert(run.exchanges[i].id, i);
    }

    bool replay(qsizetype from)
    {
        if (from == 0) {
            run = Run{};
            m_candidateIndex.clear();
            m_exchangeIndex.clear();
        }
        bool created = from > 0;
        for (qsizetype i = from; i < m_lines.size(); ++i) {
            QJsonParseError pe;
            const QByteArray bytes = m_lines[i].toByteArray();
            const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
            if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
                error = QStringLiteral("damaged JSON in %1/%2 line %3: %4")
                            .arg(m_dir, kEvents)
                            .arg(m_lineNumbers[i])
                            .arg(pe.error != QJsonParseError::NoError ? pe.errorString()
                                                                      : QStringLiteral("not an object"));
                return false;
            }
            const QJsonObject ev = doc.object();
            const QString type = ev.value("type").toString();
            const QJsonObject data = ev.value("data").toObject();
            lastSeq = std::max(lastSeq, ev.value("seq").toInteger());
            if (type == QLatin1String("run_created")) {
                const int version = data.value("schema_version").toInt(0);
                if (version > kSchemaVersion) {
                    error = newerSchemaError(m_dir, version);
                    return false;
                }
                run.info = json::runInfoFromJson(data.value("info").toObject());
                created = true;
                continue;
            }
            if (!created) {
                error = QStringLiteral("damaged run %1: %2 does not start with run_created (line %3)")
                            .arg(m_dir, kEvents)
                            .arg(m_lineNumbers[i]);
                return false;
            }
            if (type == QLatin1String("info_updated")) {
                run.info = json::runInfoFromJson(data);
            } else if (type == QLatin1String("candidate_added") || type == QLatin1String("candidate_updated")) {
                Candidate c = json::candidateFromJson(data);
                const auto it = m_candidateIndex.constFind(c.id);
                if (it != m_candidateIndex.cend()) {
                    run.candidates[*it] = std::move(c);
                } else {
                    m_candidateIndex.insert(c.id, run.candidates.size());
                    run.candidates.append(std::move(c));
                }
            } else if (type == QLatin1String("exchange_added") || type == QLatin1String("exchange_updated")) {
                LlmExchange x = json::exchangeFromJson(data);
                const auto it = m_exchangeIndex.constFind(x.id);
                if (it != m_exchangeIndex.cend()) {
                    run.exchanges[*it] = std::move(x);
                } else {
                    m_exchangeIndex.insert(x.id, run.exchanges.size());
                    run.exchanges.append(std::move(x));
                }
            } else if (type == QLatin1String("gate_recorded")) {
                run.gates.append(json::gateRecordFromJson(data));
            } else {
                warnings << QStringLiteral("ignored unknown event type \"%1\" in %2 line %3")
                                .arg(type, kEvents)
                                .arg(m_lineNumbers[i]);
            }
        }
        if (!created) {
            error = QStringLiteral("damaged run %1: %2 has no run_created event").arg(m_dir, kEvents);
            return false;
        }
        return true;
    }
};

} // namespace

std::optional<LlmExchange> readExchange(const QString &runDir, const QString &id, QString *error)
{
    if (!isSafeId(id)) {
        setError(error, QStringLiteral("invalid exchange id \"%1\"").arg(id));
        return std::nullopt;
    }
    const QString path = exchangePath(runDir, id);
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        setError(error, QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
        return std::nullopt;
    }
    const QByteArray data = f.readAll();
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(data, &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
        setError(error, QStringLiteral("damaged JSON in %1 line %2: %3")
                            .arg(path)
                            .arg(lineOfOffset(data, pe.offset))
                            .arg(pe.error != QJsonParseError::NoError ? pe.errorString() : QStringLiteral("not an object")));
        return std::nullopt;
    }
    return json::exchangeFromJson(doc.object());
}

/// Fills messages, response and reasoning from llm/<id>.json; a missing body is a warning.
static void loadExchangeBodies(const QString &dir, Run &run, QStringList &warnings)
{
    for (auto &x : run.exchanges) {
        if (!x.messages.isEmpty() || !x.response.isEmpty())
            continue; // a hand-made run.json may hold them inline
        QString err;
        const auto whole = readExchange(dir, x.id, &err);
        if (!whole) {
            warnings << QStringLiteral("prompt and response of %1 are not available: %2").arg(x.id, err);
            continue;
        }
        x.messages = whole->messages;
        x.response = whole->response;
        x.reasoning = whole->reasoning;
    }
}

std::optional<Run> openRun(const QString &dir, QString *error, QStringList *warnings, OpenOptions options)
{
    Loader loader(QDir::cleanPath(dir));
    if (!loader.load()) {
        setError(error, loader.error);
        return std::nullopt;
    }
    if (options.exchangeBodies)
        loadExchangeBodies(QDir::cleanPath(dir), loader.run, loader.warnings);
    if (warnings)
        *warnings = loader.warnings;
    return std::move(loader.run);
}

QString readCode(const QString &runDir, const Candidate &c)
{
    const QString rel = c.codeFile.isEmpty() ? QStringLiteral("kernels/%1.py").arg(c.id) : c.codeFile;
    if (!isSafeRelativePath(rel))
        return {};
    QFile f(runDir + u'/' + rel);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

bool isRunDirectory(const QString &dir)
{
    return QFileInfo(dir).isDir()
        && (QFileInfo::exists(dir + u'/' + kEvents) || QFileInfo::exists(dir + u'/' + kSnapshot));
}

QStringList listRuns(const QString &runsDir)
{
    static const QRegularExpression stamp(QStringLiteral("^(\\d{8}-\\d{6})(.*?)(?:-(\\d+))?$"));
    struct Entry {
        QString key;
        int suffix;
        QString path;
    };
    QList<Entry> entries;
    const auto infos = QDir(runsDir).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QFileInfo &fi : infos) {
        if (!isRunDirectory(fi.absoluteFilePath()))
            continue;
        const auto m = stamp.match(fi.fileName());
        // A directory renamed by hand sorts by its modification time instead of its name.
        const QString key = m.hasMatch() ? m.captured(1) : fi.lastModified().toString(QStringLiteral("yyyyMMdd-HHmmss"));
        entries.append({key, m.hasMatch() ? m.captured(3).toInt() : 0, fi.absoluteFilePath()});
    }
    std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
        if (a.key != b.key)
            return a.key > b.key;
        if (a.suffix != b.suffix)
            return a.suffix > b.suffix;
        return a.path > b.path;
    });
    QStringList out;
    for (const auto &e : entries)
        out << e.path;
    return out;
}

QString runDirectoryName(const QDateTime &created, const QString &task, const QString &provider)
{
    return QStringLiteral("%1_%2_%3")
        .arg(created.toLocalTime().toString(QStringLiteral("yyyyMMdd-HHmmss")), safeToken(task), safeToken(provider));
}

// ---------------------------------------------------------------------------------------------
// RunWriter

std::unique_ptr<RunWriter> RunWriter::create(const QString &runsDir, const RunInfo &info, QString *error)
{
    if (!QDir().mkpath(runsDir)) {
        setError(error, QStringLiteral("cannot create runs directory %1").arg(runsDir));
        return nullptr;
    }
    RunInfo in = info;
    if (!in.createdAt.isValid())
        in.createdAt = QDateTime::currentDateTimeUtc();
    const QString base = runDirectoryName(in.createdAt, in.taskName, in.provider);
    QString name;
    QString path;
    // mkdir is atomic: the first process to create a name owns it, the next gets "-2", "-3" ...
    for (int n = 1; n < 10000; ++n) {
        name = n == 1 ? base : QStringLiteral("%1-%2").arg(base).arg(n);
        path = QDir(runsDir).absoluteFilePath(name);
        if (::mkdir(QFile::encodeName(path).constData(), 0755) == 0)
            break;
        if (errno != EEXIST) {
            setError(error, QStringLiteral("cannot create run directory %1: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno))));
            return nullptr;
        }
        path.clear();
    }
    if (path.isEmpty()) {
        setError(error, QStringLiteral("cannot find a free run directory name for %1 in %2").arg(base, runsDir));
        return nullptr;
    }
    fsyncPath(QDir(runsDir).absolutePath());

    std::unique_ptr<RunWriter> w(new RunWriter);
    w->m_dir = path;
    in.schemaVersion = kSchemaVersion;
    if (in.id.isEmpty())
        in.id = name;
    w->m_run.info = in;
    w->m_lock = std::make_unique<QLockFile>(path + u'/' + kLock);
    w->m_lock->setStaleLockTime(0);
    if (!w->m_lock->tryLock(0)) {
        setError(error, QStringLiteral("cannot lock %1").arg(path));
        return nullptr;
    }
    if (!w->openEventLog()
        || !w->appendEvent(QStringLiteral("run_created"),
                           {{"schema_version", kSchemaVersion}, {"info", json::toJson(in)}})
        || !w->writeSnapshot()) {
        setError(error, w->m_lastError);
        return nullptr;
    }
    fsyncPath(path);
    return w;
}

std::unique_ptr<RunWriter> RunWriter::resume(const QString &runDir, QString *error)
{
    const QString dir = QFileInfo(runDir).absoluteFilePath();
    std::unique_ptr<RunWriter> w(new RunWriter);
    w->m_dir = dir;
    if (isRunDirectory(dir)) {
        w->m_lock = std::make_unique<QLockFile>(dir + u'/' + kLock);
        w->m_lock->setStaleLockTime(0); // never steal a live writer's lock; a dead one's pid is stale
        if (!w->m_lock->tryLock(0)) {
            qint64 pid = 0;
            QString host, app;
            w->m_lock->getLockInfo(&pid, &host, &app);
            setError(error, QStringLiteral("run %1 is being written by another process (pid %2 on %3)")
                                .arg(dir)
                                .arg(pid)
                                .arg(host));
            return nullptr;
        }
    }
    Loader loader(dir);
    if (!loader.load()) {
        setError(error, loader.error);
        return nullptr;
    }
    loadExchangeBodies(dir, loader.run, loader.warnings);
    w->m_run = std::move(loader.run);
    w->m_warnings = loader.warnings;
    w->m_seq = loader.lastSeq;

    const QString eventsPath = dir + u'/' + kEvents;
    if (loader.hadEvents && QFileInfo(eventsPath).size() > loader.validEventBytes) {
        // Cut the torn tail so the next event starts on a line of its own.
        if (::truncate(QFile::encodeName(eventsPath).constData(), loader.validEventBytes) != 0) {
            setError(error, QStringLiteral("cannot repair %1: %2").arg(eventsPath, QString::fromLocal8Bit(std::strerror(errno))));
            return nullptr;
        }
    }
    if (!w->openEventLog()) {
        setError(error, w->m_lastError);
        return nullptr;
    }
    if (!loader.hadEvents) {
        // A snapshot-only run (hand-made or copied without its log): seed a log from the snapshot.
        bool ok = w->appendEvent(QStringLiteral("run_created"),
                                 {{"schema_version", kSchemaVersion}, {"info", json::toJson(w->m_run.info)}});
        for (const auto &c : std::as_const(w->m_run.candidates))
            ok = ok && w->appendEvent(QStringLiteral("candidate_added"), json::toJson(c));
        for (const auto &x : std::as_const(w->m_run.exchanges)) {
            QString err;
            if (!QFileInfo::exists(exchangePath(dir, x.id))
                && !writeAtomically(exchangePath(dir, x.id), QJsonDocument(json::toJson(x)).toJson(), &err)) {
                setError(error, err);
                return nullptr;
            }
            ok = ok && w->appendEvent(QStringLiteral("exchange_added"), exchangeHeader(x));
        }
        for (const auto &g : std::as_const(w->m_run.gates))
            ok = ok && w->appendEvent(QStringLiteral("gate_recorded"), json::toJson(g));
        if (!ok) {
            setError(error, w->m_lastError);
            return nullptr;
        }
    }
    static const QRegularExpression num(QStringLiteral("^[a-z](\\d+)$"));
    for (const auto &c : std::as_const(w->m_run.candidates))
        if (const auto m = num.match(c.id); m.hasMatch())
            w->m_nextCandidate = std::max(w->m_nextCandidate, m.captured(1).toInt() + 1);
    for (const auto &x : std::as_const(w->m_run.exchanges))
        if (const auto m = num.match(x.id); m.hasMatch())
            w->m_nextExchange = std::max(w->m_nextExchange, m.captured(1).toInt() + 1);
    w->writeSnapshot();
    return w;
}

RunWriter::~RunWriter()
{
    if (m_eventsFd >= 0) {
        if (m_snapshotSeq != m_seq)
            writeSnapshot();
        ::close(m_eventsFd);
    }
}

bool RunWriter::fail(const QString &message)
{
    m_lastError = message;
    return false;
}

bool RunWriter::openEventLog()
{
    const QString path = m_dir + u'/' + kEvents;
    m_eventsFd = ::open(QFile::encodeName(path).constData(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (m_eventsFd < 0)
        return fail(QStringLiteral("cannot open %1: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno))));
    m_sinceSnapshot.start();
    return true;
}

bool RunWriter::appendEvent(const QString &type, const QJsonObject &data)
{
    // Written by hand so that "seq" comes first: readers find the events after a snapshot by
    // scanning line prefixes instead of parsing every line.
    const qint64 seq = m_seq + 1;
    QByteArray line;
    const QByteArray body = QJsonDocument(data).toJson(QJsonDocument::Compact);
    line.reserve(body.size() + 96);
    line += "{\"seq\":" + QByteArray::number(seq) + ",\"at\":\""
        + QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toLatin1() + "\",\"type\":\""
        + type.toLatin1() + "\",\"data\":" + body + "}\n";
    const off_t before = ::lseek(m_eventsFd, 0, SEEK_END);
    // One write() per event: a kill leaves at most one torn line at the end, never a mixed one.
    if (!writeAll(m_eventsFd, line.constData(), line.size()) || ::fsync(m_eventsFd) != 0) {
        const QString why = QString::fromLocal8Bit(std::strerror(errno));
        if (before >= 0)
            (void)::ftruncate(m_eventsFd, before); // do not leave a half event before the next one
        return fail(QStringLiteral("cannot append to %1/%2: %3").arg(m_dir, kEvents, why));
    }
    m_seq = seq;
    return true;
}

void RunWriter::maybeSnapshot()
{
    // The log is the truth; the snapshot only speeds up opening. Keep it to ~5% of the writer's time.
    if (m_sinceSnapshot.elapsed() >= std::max(kSnapshotIntervalMs, 20 * m_snapshotCostMs))
        writeSnapshot();
}

QJsonObject runToJson(const Run &run, bool exchangeBodies)
{
    QJsonArray cs, xs, gs;
    for (const auto &c : run.candidates)
        cs.append(json::toJson(c));
    for (const auto &x : run.exchanges)
        xs.append(exchangeBodies ? json::toJson(x) : exchangeHeader(x));
    for (const auto &g : run.gates)
        gs.append(json::toJson(g));
    return {{"schema_version", kSchemaVersion},
            {"info", json::toJson(run.info)},
            {"candidates", cs},
            {"exchanges", xs},
            {"gates", gs}};
}

bool RunWriter::writeSnapshot()
{
    QElapsedTimer cost;
    cost.start();
    QJsonObject o = runToJson(m_run, false);
    o.insert("last_seq", m_seq);
    QString err;
    // Compact: a 2,000-candidate run is tens of MB, and people read it through `kwb show --json`.
    const bool ok = writeAtomically(m_dir + u'/' + kSnapshot, QJsonDocument(o).toJson(QJsonDocument::Compact), &err);
    m_snapshotCostMs = cost.elapsed();
    m_sinceSnapshot.restart();
    if (!ok)
        return fail(err);
    m_snapshotSeq = m_seq;
    return true;
}

QString RunWriter::nextCandidateId()
{
    return QStringLiteral("c%1").arg(m_nextCandidate++, 4, 10, QLatin1Char('0'));
}

QString RunWriter::nextExchangeId()
{
    return QStringLiteral("x%1").arg(m_nextExchange++, 4, 10, QLatin1Char('0'));
}

bool RunWriter::addCandidate(const Candidate &cand, const QString &code)
{
    Candidate c = cand;
    if (c.id.isEmpty())
        c.id = nextCandidateId();
    if (!isSafeId(c.id))
        return fail(QStringLiteral("invalid candidate id \"%1\"").arg(c.id));
    if (m_run.candidate(c.id))
        return fail(QStringLiteral("candidate %1 already exists in %2").arg(c.id, m_dir));
    if (c.codeFile.isEmpty())
        c.codeFile = QStringLiteral("kernels/%1.py").arg(c.id);
    if (!isSafeRelativePath(c.codeFile))
        return fail(QStringLiteral("code file %1 is outside the run directory").arg(c.codeFile));
    if (!c.createdAt.isValid())
        c.createdAt = QDateTime::currentDateTimeUtc();
    QString err;
    if (!writeAtomically(m_dir + u'/' + c.codeFile, code.toUtf8(), &err))
        return fail(err);
    if (c.eval && !writeAtomically(QStringLiteral("%1/evals/%2.json").arg(m_dir, c.id),
                                   QJsonDocument(json::toJson(*c.eval)).toJson(), &err))
        return fail(err);
    if (!appendEvent(QStringLiteral("candidate_added"), json::toJson(c)))
        return false;
    // Ids given by the caller also move the counter, so nextCandidateId never hands one out twice.
    static const QRegularExpression num(QStringLiteral("^c(\\d+)$"));
    if (const auto m = num.match(c.id); m.hasMatch())
        m_nextCandidate = std::max(m_nextCandidate, m.captured(1).toInt() + 1);
    m_run.candidates.append(std::move(c));
    maybeSnapshot();
    return true;
}

bool RunWriter::updateCandidate(const Candidate &cand)
{
    Candidate *existing = m_run.candidate(cand.id);
    if (!existing)
        return fail(QStringLiteral("no candidate %1 in %2").arg(cand.id, m_dir));
    Candidate c = cand;
    if (c.codeFile.isEmpty())
        c.codeFile = existing->codeFile;
    if (!c.createdAt.isValid())
        c.createdAt = existing->createdAt;
    QString err;
    if (c.eval && !writeAtomically(QStringLiteral("%1/evals/%2.json").arg(m_dir, c.id),
                                   QJsonDocument(json::toJson(*c.eval)).toJson(), &err))
        return fail(err);
    if (!appendEvent(QStringLiteral("candidate_updated"), json::toJson(c)))
        return false;
    *existing = std::move(c);
    maybeSnapshot();
    return true;
}

bool RunWriter::addExchange(const LlmExchange &xin)
{
    LlmExchange x = xin;
    if (x.id.isEmpty())
        x.id = nextExchangeId();
    if (!isSafeId(x.id))
        return fail(QStringLiteral("invalid exchange id \"%1\"").arg(x.id));
    if (m_run.exchange(x.id))
        return fail(QStringLiteral("exchange %1 already exists in %2").arg(x.id, m_dir));
    QString err;
    if (!writeAtomically(exchangePath(m_dir, x.id), QJsonDocument(json::toJson(x)).toJson(), &err))
        return fail(err);
    if (!appendEvent(QStringLiteral("exchange_added"), exchangeHeader(x)))
        return false;
    static const QRegularExpression num(QStringLiteral("^x(\\d+)$"));
    if (const auto m = num.match(x.id); m.hasMatch())
        m_nextExchange = std::max(m_nextExchange, m.captured(1).toInt() + 1);
    m_run.exchanges.append(std::move(x));
    maybeSnapshot();
    return true;
}

bool RunWriter::updateExchange(const LlmExchange &x)
{
    auto it = std::find_if(m_run.exchanges.begin(), m_run.exchanges.end(),
                           [&](const LlmExchange &e) { return e.id == x.id; });
    if (it == m_run.exchanges.end())
        return fail(QStringLiteral("no exchange %1 in %2").arg(x.id, m_dir));
    QString err;
    if (!writeAtomically(exchangePath(m_dir, x.id), QJsonDocument(json::toJson(x)).toJson(), &err))
        return fail(err);
    if (!appendEvent(QStringLiteral("exchange_updated"), exchangeHeader(x)))
        return false;
    *it = x;
    maybeSnapshot();
    return true;
}

bool RunWriter::addGate(const GateRecord &gin)
{
    GateRecord g = gin;
    if (!g.at.isValid())
        g.at = QDateTime::currentDateTimeUtc();
    if (!appendEvent(QStringLiteral("gate_recorded"), json::toJson(g)))
        return false;
    m_run.gates.append(g);
    maybeSnapshot();
    return true;
}

bool RunWriter::updateInfo(const RunInfo &in)
{
    RunInfo info = in;
    info.schemaVersion = m_run.info.schemaVersion;
    info.id = m_run.info.id;
    if (!info.createdAt.isValid())
        info.createdAt = m_run.info.createdAt;
    if (!appendEvent(QStringLiteral("info_updated"), json::toJson(info)))
        return false;
    m_run.info = info;
    // State changes (finished, stopped ...) are what other tools look for first: snapshot now.
    return writeSnapshot();
}

bool RunWriter::appendLog(const QString &line)
{
    QFile f(m_dir + QStringLiteral("/console.log"));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Append))
        return fail(QStringLiteral("cannot open %1: %2").arg(f.fileName(), f.errorString()));
    QByteArray bytes = line.toUtf8();
    if (!bytes.endsWith('\n'))
        bytes += '\n';
    if (f.write(bytes) != bytes.size() || !f.flush())
        return fail(QStringLiteral("cannot write %1: %2").arg(f.fileName(), f.errorString()));
    return true;
}

bool RunWriter::snapshotPrompts(const QString &promptsDir)
{
    const QDir src(promptsDir);
    if (!src.exists())
        return fail(QStringLiteral("no prompts directory %1").arg(promptsDir));
    QDirIterator it(promptsDir, QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return fail(QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
        QString err;
        if (!writeAtomically(m_dir + QStringLiteral("/prompts/") + src.relativeFilePath(path), f.readAll(), &err))
            return fail(err);
    }
    return true;
}

bool RunWriter::writeFile(const QString &relativePath, const QByteArray &data)
{
    if (!isSafeRelativePath(relativePath))
        return fail(QStringLiteral("%1 is outside the run directory").arg(relativePath));
    const QString clean = QDir::cleanPath(relativePath);
    if (clean == kEvents || clean == kSnapshot || clean == kLock)
        return fail(QStringLiteral("%1 belongs to the run store").arg(relativePath));
    QString err;
    return writeAtomically(m_dir + u'/' + clean, data, &err) || fail(err);
}

} // namespace kwb::store

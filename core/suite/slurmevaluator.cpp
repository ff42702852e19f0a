// SPDX-License-Identifier: MIT
#include "suite/slurmevaluator.h"

#include "env/locations.h"
#include "model/json.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <QUuid>

namespace kwb::suite {

namespace {

const QSet<QString> &activeStates()
{
    static const QSet<QString> s{QStringLiteral("PENDING"), QStringLiteral("CONFIGURING"), QStringLiteral("RUNNING"),
                                 QStringLiteral("COMPLETING"), QStringLiteral("SUSPENDED"), QStringLiteral("REQUEUED"),
                                 QStringLiteral("RESIZING"), QStringLiteral("STAGE_OUT"), QStringLiteral("SIGNALING")};
    return s;
}

QString shellQuote(const QString &s)
{
    QString q = s;
    q.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + q + QLatin1Char('\'');
}

QString readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QString tail(const QString &text, int lines)
{
    QStringList l = text.split(QLatin1Char('\n'));
    while (!l.isEmpty() && l.last().isEmpty())
        l.removeLast();
    return l.mid(std::max<qsizetype>(0, l.size() - lines)).join(QLatin1Char('\n'));
}

QString tool(const QString &name)
{
    const QString found = QStandardPaths::findExecutable(name);
    return found.isEmpty() ? name : found;
}

} // namespace

struct SlurmEvaluator::Job {
    QString id;
    bool baseline = false;
    EvalRequest req;
    QString dir;
    QString slurmId;
    int attempt = 0; ///< submissions so far
    bool started = false;
    bool cancelled = false;
    int missing = 0; ///< polls since the job left the queue without a result
    QString lastState;
    QElapsedTimer wall;
    QProcess *sbatch = nullptr;
};

SlurmEvaluator::SlurmEvaluator(SlurmSettings settings, QString exchangeDir, QObject *parent)
    : EvalBackend(parent)
    , m_settings(std::move(settings))
    , m_exchange(std::move(exchangeDir))
{
    QDir().mkpath(m_exchange);
    m_poll.setInterval(std::max(100, m_settings.pollMs));
    connect(&m_poll, &QTimer::timeout, this, &SlurmEvaluator::poll);
}

SlurmEvaluator::~SlurmEvaluator()
{
    // Jobs still queued or running on the cluster would go on spending GPU time: cancel them.
    QStringList ids;
    for (Job *j : std::as_const(m_jobs))
        if (!j->slurmId.isEmpty())
            ids << j->slurmId;
    if (!ids.isEmpty()) {
        QProcess p;
        p.setProcessEnvironment(env::scrubbedEnvironment());
        p.start(tool(QStringLiteral("scancel")), ids);
        p.waitForFinished(10000);
    }
    qDeleteAll(m_jobs);
}

bool SlurmEvaluator::available(QString *why)
{
    for (const char *t : {"sbatch", "squeue", "scancel"})
        if (QStandardPaths::findExecutable(QString::fromLatin1(t)).isEmpty()) {
            if (why)
                *why = QStringLiteral("%1 is not on the PATH (install Slurm's client tools)").arg(QLatin1String(t));
            return false;
        }
    return true;
}

QString SlurmEvaluator::slurmJobId(const QString &jobId) const
{
    const Job *j = m_jobs.value(jobId);
    return j ? j->slurmId : QString();
}

QString SlurmEvaluator::jobDirectory(const QString &jobId) const
{
    const Job *j = m_jobs.value(jobId);
    return j ? j->dir : QString();
}

QString SlurmEvaluator::evaluate(const EvalRequest &req)
{
    return submitNew(req, false);
}

QString SlurmEvaluator::baseline(const EvalRequest &req, bool)
{
    return submitNew(req, true);
}

QStringList SlurmEvaluator::commandFor(const Job &job) const
{
    const QString kwb = m_settings.kwbBinary.isEmpty() ? QCoreApplication::applicationFilePath() : m_settings.kwbBinary;
    const EvalRequest &r = job.req;
    const QString task = QFileInfo(r.taskFile).fileName();
    QStringList c{kwb, job.baseline ? QStringLiteral("baseline") : QStringLiteral("eval"), task};
    if (!job.baseline)
        c << QStringLiteral("candidate.py") << QStringLiteral("--trials") << QString::number(r.trials) << QStringLiteral("--atol")
          << QString::number(r.atol, 'g', 17) << QStringLiteral("--rtol") << QString::number(r.rtol, 'g', 17)
          << QStringLiteral("--compile-timeout") << QString::number(r.compileTimeoutSec);
    if (!job.baseline && !r.baselines)
        c << QStringLiteral("--no-baselines");
    c << QStringLiteral("--device") << r.device << QStringLiteral("--warmup") << QString::number(r.warmup)
      << QStringLiteral("--repeat") << QString::number(r.repeat) << QStringLiteral("--timeout")
      << QString::number(r.runTimeoutSec) << QStringLiteral("--json");
    if (!r.python.isEmpty())
        c << QStringLiteral("--python") << r.python;
    return c;
}

QString SlurmEvaluator::submitNew(const EvalRequest &req, bool baseline)
{
    auto *job = new Job;
    job->id = QStringLiteral("s%1").arg(m_nextId++);
    job->baseline = baseline;
    job->req = req;
    job->wall.start();
    job->dir = QDir(m_exchange).filePath(QStringLiteral("%1-%2").arg(job->id, QUuid::createUuid().toString(QUuid::Id128).left(12)));
    m_jobs.insert(job->id, job);
    const QString id = job->id;

    // Inputs into the exchange folder: the nodes may not see the user's task or run directory.
    QDir().mkpath(job->dir);
    bool copied = QFile::copy(req.taskFile, QDir(job->dir).filePath(QFileInfo(req.taskFile).fileName()));
    if (!baseline)
        copied = copied && QFile::copy(req.candidateFile, QDir(job->dir).filePath(QStringLiteral("candidate.py")));
    if (!copied) {
        QTimer::singleShot(0, this, [this, id] {
            if (Job *j = m_jobs.value(id)) {
                EvalResult r;
                r.status = EvalStatus::InternalError;
                r.reason = QStringLiteral("cannot copy the task or the candidate into the Slurm exchange folder %1").arg(j->dir);
                finish(j, r);
            }
        });
        return id;
    }
    QStringList quoted;
    for (const auto &a : commandFor(*job))
        quoted << shellQuote(a);
    const QString python = req.python.isEmpty() ? env::pythonInterpreter() : req.python;
    const QString script = QStringLiteral(
                               "#!/bin/sh\n"
                               "# Written by Kernel Workbench: one evaluation, run where Slurm places it.\n"
                               "cd %1 || exit 3\n"
                               "export KWB_PYTHON=%2\n"
                               "echo \"host $(hostname) CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-}\" > node.txt\n"
                               "%3 > result.json.part 2> log.txt\n"
                               "rc=$?\n"
                               "[ -s result.json.part ] && mv result.json.part result.json\n"
                               "echo $rc > exit_code\n")
                               .arg(shellQuote(job->dir), shellQuote(python), quoted.join(QLatin1Char(' ')));
    QFile f(QDir(job->dir).filePath(QStringLiteral("job.sh")));
    if (f.open(QIODevice::WriteOnly))
        f.write(script.toUtf8());
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup);
    emit phaseChanged(id, QStringLiteral("queued"));
    submit(job);
    return id;
}

void SlurmEvaluator::submit(Job *job)
{
    ++job->attempt;
    job->missing = 0;
    job->slurmId.clear();
    job->lastState.clear();
    job->started = false;
    QFile::remove(QDir(job->dir).filePath(QStringLiteral("exit_code")));
    QStringList args{QStringLiteral("--parsable"), QStringLiteral("--job-name=kwb-") + job->id,
                     QStringLiteral("--output=") + QDir(job->dir).filePath(QStringLiteral("slurm-%j.out")),
                     QStringLiteral("--chdir=") + job->dir, QStringLiteral("--ntasks=1"),
                     QStringLiteral("--time=") + m_settings.timeLimit};
    if (!m_settings.partition.isEmpty())
        args << QStringLiteral("--partition=") + m_settings.partition;
    if (!m_settings.account.isEmpty())
        args << QStringLiteral("--account=") + m_settings.account;
    if (!m_settings.gres.isEmpty())
        args << QStringLiteral("--gres=") + m_settings.gres;
    args << m_settings.extraArgs << QDir(job->dir).filePath(QStringLiteral("job.sh"));
    auto *p = new QProcess(this);
    job->sbatch = p;
    p->setProcessEnvironment(env::scrubbedEnvironment());
    const QString id = job->id;
    connect(p, &QProcess::finished, this, [this, p, id](int code, QProcess::ExitStatus st) {
        p->deleteLater();
        Job *j = m_jobs.value(id);
        if (!j)
            return;
        j->sbatch = nullptr;
        const QString outText = QString::fromUtf8(p->readAllStandardOutput()).trimmed();
        const QString errText = QString::fromUtf8(p->readAllStandardError()).trimmed();
        if (st != QProcess::NormalExit || code != 0 || outText.isEmpty()) {
            EvalResult r;
            r.status = EvalStatus::InternalError;
            r.reason = QStringLiteral("sbatch refused the job: %1").arg(errText.isEmpty() ? QStringLiteral("exit code %1").arg(code) : errText.section(QLatin1Char('\n'), 0, 0));
            r.logTail = errText;
            finish(j, r);
            return;
        }
        j->slurmId = outText.section(QLatin1Char(';'), 0, 0).section(QLatin1Char('\n'), -1);
        if (j->cancelled) {
            QProcess::startDetached(tool(QStringLiteral("scancel")), {j->slurmId});
            return;
        }
        emit jobNote(id, QStringLiteral("slurm job %1 submitted%2 (%3)")
                             .arg(j->slurmId, j->attempt > 1 ? QStringLiteral(" again (attempt %1)").arg(j->attempt) : QString(), j->dir));
        emit phaseChanged(id, QStringLiteral("slurm_pending"));
        if (!m_poll.isActive())
            m_poll.start();
    });
    connect(p, &QProcess::errorOccurred, this, [this, p, id](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return;
        p->deleteLater();
        if (Job *j = m_jobs.value(id)) {
            j->sbatch = nullptr;
            EvalResult r;
            r.status = EvalStatus::InternalError;
            r.reason = QStringLiteral("sbatch could not be started (is Slurm installed here?)");
            finish(j, r);
        }
    });
    p->start(tool(QStringLiteral("sbatch")), args);
}

void SlurmEvaluator::poll()
{
    if (m_query)
        return; // the previous squeue is still running
    QStringList ids;
    for (Job *j : std::as_const(m_jobs))
        if (!j->slurmId.isEmpty())
            ids << j->slurmId;
    if (ids.isEmpty()) {
        if (m_jobs.isEmpty())
            m_poll.stop();
        return;
    }
    m_query = new QProcess(this);
    m_query->setProcessEnvironment(env::scrubbedEnvironment());
    connect(m_query, &QProcess::finished, this, [this](int code, QProcess::ExitStatus) {
        QProcess *q = m_query;
        m_query = nullptr;
        q->deleteLater();
        QHash<QString, QString> states;
        const auto lines = QString::fromUtf8(q->readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        for (const auto &l : lines) {
            const auto parts = l.simplified().split(QLatin1Char(' '));
            if (parts.size() >= 2)
                states.insert(parts.at(0), parts.at(1));
        }
        // squeue fails for a whole list when one id has left the controller: fall back to "unknown".
        if (code != 0 && states.isEmpty())
            states.insert(QStringLiteral("?"), QStringLiteral("?"));
        onQueue(states);
    });
    m_query->start(tool(QStringLiteral("squeue")), {QStringLiteral("-h"), QStringLiteral("-t"), QStringLiteral("all"),
                                                   QStringLiteral("-o"), QStringLiteral("%i %T"),
                                                   QStringLiteral("-j"), ids.join(QLatin1Char(','))});
}

void SlurmEvaluator::onQueue(const QHash<QString, QString> &states)
{
    const auto jobs = m_jobs.values();
    for (Job *j : jobs) {
        if (j->slurmId.isEmpty() || j->cancelled)
            continue;
        const QString result = QDir(j->dir).filePath(QStringLiteral("result.json"));
        if (QFileInfo::exists(result)) {
            const auto doc = QJsonDocument::fromJson(readAll(result).toUtf8());
            EvalResult r = json::evalResultFromJson(doc.object());
            if (!doc.isObject()) {
                r = EvalResult{};
                r.status = EvalStatus::InternalError;
                r.reason = QStringLiteral("slurm job %1 wrote an unreadable result").arg(j->slurmId);
            }
            const QString node = readAll(QDir(j->dir).filePath(QStringLiteral("node.txt"))).trimmed();
            r.logTail = QStringLiteral("[slurm job %1, %2]\n").arg(j->slurmId, node) + r.logTail;
            finish(j, r);
            continue;
        }
        const QString state = states.value(j->slurmId);
        if (activeStates().contains(state)) {
            j->missing = 0;
            if (state == QLatin1String("RUNNING") && !j->started) {
                j->started = true;
                emit jobStarted(j->id);
                emit phaseChanged(j->id, QStringLiteral("slurm_running"));
            }
            j->lastState = state;
            continue;
        }
        if (!state.isEmpty() && state != QLatin1String("?"))
            j->lastState = state;
        // Gone from the queue, or ended, without a result: give a shared filesystem two more polls
        // to show the file, then call the job lost.
        if (++j->missing < 3)
            continue;
        if (QFileInfo::exists(QDir(j->dir).filePath(QStringLiteral("exit_code")))) {
            EvalResult r;
            r.status = EvalStatus::InternalError;
            const QString log = readAll(QDir(j->dir).filePath(QStringLiteral("log.txt")));
            r.reason = QStringLiteral("slurm job %1: kwb %2 ended with exit code %3 and no result")
                           .arg(j->slurmId, j->baseline ? QStringLiteral("baseline") : QStringLiteral("eval"),
                                readAll(QDir(j->dir).filePath(QStringLiteral("exit_code"))).trimmed());
            r.logTail = tail(log, 30);
            finish(j, r);
            continue;
        }
        lost(j, j->lastState.isEmpty() ? QStringLiteral("not in the queue") : j->lastState);
    }
}

void SlurmEvaluator::lost(Job *j, const QString &state)
{
    const QString out = tail(readAll(QDir(j->dir).filePath(QStringLiteral("slurm-%1.out").arg(j->slurmId))), 20);
    if (j->attempt <= m_settings.retries) {
        emit jobNote(j->id, QStringLiteral("slurm job %1 ended without a result (%2); submitting it again").arg(j->slurmId, state));
        submit(j);
        return;
    }
    EvalResult r;
    const bool timeLimit = state == QLatin1String("TIMEOUT") || state == QLatin1String("DEADLINE");
    r.status = timeLimit ? EvalStatus::RunTimeout : EvalStatus::InternalError;
    r.reason = timeLimit ? QStringLiteral("slurm job %1 passed its time limit (%2) on every attempt (%3)")
                               .arg(j->slurmId, m_settings.timeLimit)
                               .arg(j->attempt)
                         : QStringLiteral("slurm job %1 ended without a result (%2) on every attempt (%3): lost, preempted or failed node")
                               .arg(j->slurmId, state)
                               .arg(j->attempt);
    r.logTail = out;
    finish(j, r);
}

void SlurmEvaluator::cancel(const QString &jobId)
{
    Job *j = m_jobs.value(jobId);
    if (!j || j->cancelled)
        return;
    j->cancelled = true;
    if (!j->slurmId.isEmpty()) {
        auto *p = new QProcess(this);
        p->setProcessEnvironment(env::scrubbedEnvironment());
        connect(p, &QProcess::finished, p, &QObject::deleteLater);
        p->start(tool(QStringLiteral("scancel")), {j->slurmId});
        emit jobNote(jobId, QStringLiteral("slurm job %1 cancelled").arg(j->slurmId));
    }
    EvalResult r;
    r.status = EvalStatus::Cancelled;
    r.reason = QStringLiteral("cancelled");
    const QString id = jobId;
    QTimer::singleShot(0, this, [this, id, r] {
        if (Job *job = m_jobs.value(id))
            finish(job, r);
    });
}

void SlurmEvaluator::finish(Job *job, EvalResult result)
{
    m_jobs.remove(job->id);
    if (job->sbatch)
        job->sbatch->disconnect(this);
    const QString id = job->id;
    delete job;
    if (m_jobs.isEmpty())
        m_poll.stop();
    emit evaluationFinished(id, result);
}

} // namespace kwb::suite

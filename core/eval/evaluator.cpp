// SPDX-License-Identifier: MIT
#include "eval/evaluator.h"

#include "env/locations.h"
#include "eval/baselinecache.h"
#include "eval/gpulock.h"
#include "eval/resultcheck.h"
#include "eval/sandbox.h"
#include "eval/workerprocess.h"
#include "model/json.h"
#include "tasks/taskindex.h"

#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTimer>

#include <sys/prctl.h>

namespace kwb {

namespace {

/// How long a worker may take to import torch and say "ready" before we call it broken.
constexpr int StartupLimitSec = 180;

QString newScratchDir()
{
    QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/kwb-eval-XXXXXX"));
    dir.setAutoRemove(false); // removed by the evaluator when the job (or the warm worker) ends
    return dir.isValid() ? dir.path() : QString();
}

bool keepScratch()
{
    return qEnvironmentVariableIntValue("KWB_KEEP_SCRATCH") == 1;
}

/// The last "ready" event per interpreter: a cached baseline's key (device, torch version) is
/// known without starting a worker.
QHash<QString, QJsonObject> &knownInterpreters()
{
    static QHash<QString, QJsonObject> known;
    return known;
}

EvalResult fromCache(EvalResult r)
{
    r.reason = QStringLiteral("cached baseline (%1)").arg(r.reason.isEmpty() ? QStringLiteral("ok") : r.reason);
    return r;
}

EvalResult failure(EvalStatus status, const QString &reason)
{
    EvalResult r;
    r.status = status;
    r.reason = reason;
    return r;
}

} // namespace

struct Evaluator::Job {
    enum Kind { Eval, Baseline };
    QString id;
    Kind kind = Eval;
    EvalRequest req;
    bool useCache = true;
    QString python;
    WorkerProcess *worker = nullptr;
    GpuLock *lock = nullptr;
    QTimer limit; ///< start-up, then compile, then run limit
    enum Stage { Queued, WaitingLock, Starting, Compiling, Running, Done } stage = Queued;
    QString phase;
    QElapsedTimer wall;
    BaselineCache::Key cacheKey;
    QString taskHash;
};

Evaluator::Evaluator(QObject *parent)
    : EvalBackend(parent)
    , m_cache(std::make_unique<BaselineCache>())
{
    const QByteArray pre = qgetenv("KWB_PRESTART");
    m_prestart = !(pre == "0" || pre == "off" || pre == "no");
    // A candidate running as this user (no sandbox, GPU machines) must not reach this process's
    // memory or file descriptors through /proc (the result pipe, the terminal). KWB_HOST_DUMPABLE=1
    // keeps it attachable for a debugger.
    if (qEnvironmentVariableIntValue("KWB_HOST_DUMPABLE") != 1)
        ::prctl(PR_SET_DUMPABLE, 0);
}

Evaluator::~Evaluator()
{
    // Never leave a worker or a scratch dir behind when the application closes.
    for (auto &job : std::as_const(m_queue))
        job->limit.stop();
    m_queue.clear();
    if (m_current) {
        m_current->limit.stop();
        if (m_current->worker) {
            const QString scratch = m_current->worker->scratchDir();
            delete m_current->worker;
            if (!keepScratch())
                QDir(scratch).removeRecursively();
        }
        delete m_current->lock;
        m_current.reset();
    }
    discardWarm();
}

void Evaluator::discardWarm()
{
    if (!m_warm)
        return;
    const QString scratch = m_warm->scratchDir();
    delete m_warm.data();
    m_warm.clear();
    QDir(scratch).removeRecursively();
}

BaselineCache &Evaluator::baselineCache()
{
    return *m_cache;
}

void Evaluator::setPrestartEnabled(bool on)
{
    m_prestart = on;
    if (!on)
        discardWarm();
}

void Evaluator::prestart(const QString &python)
{
    const QString py = python.isEmpty() ? env::pythonInterpreter() : python;
    if (m_warm && !m_warm->hasExited() && m_warm->python() == py)
        return;
    discardWarm();
    m_warm = spawnWorker(py);
}

void Evaluator::setLane(const QString &visibleDevices, const QString &lockKey)
{
    if (visibleDevices != m_visibleDevices)
        discardWarm();
    m_visibleDevices = visibleDevices;
    m_lockKey = lockKey;
}

void Evaluator::setSandboxEnabled(bool on)
{
    if (on == m_sandboxOn)
        return;
    m_sandboxOn = on;
    // A warm worker made under the other setting must not serve the next job.
    discardWarm();
}

bool Evaluator::warmWorkerReady() const
{
    return m_warm && m_warm->isReady() && !m_warm->hasExited();
}

int Evaluator::pendingJobs() const
{
    return int(m_queue.size()) + (m_current ? 1 : 0);
}

QString Evaluator::scratchDirOf(const QString &jobId) const
{
    if (m_current && m_current->id == jobId && m_current->worker)
        return m_current->worker->scratchDir();
    return {};
}

QString Evaluator::evaluate(const EvalRequest &req)
{
    auto job = std::make_shared<Job>();
    job->id = QStringLiteral("e%1").arg(m_nextId++);
    job->kind = Job::Eval;
    job->req = req;
    enqueue(job);
    return job->id;
}

QString Evaluator::baseline(const EvalRequest &req, bool useCache)
{
    auto job = std::make_shared<Job>();
    job->id = QStringLiteral("b%1").arg(m_nextId++);
    job->kind = Job::Baseline;
    job->req = req;
    job->useCache = useCache;
    enqueue(job);
    return job->id;
}

void Evaluator::enqueue(std::shared_ptr<Job> job)
{
    job->python = job->req.python.isEmpty() ? env::pythonInterpreter() : job->req.python;
    job->limit.setSingleShot(true);
    job->limit.setTimerType(Qt::PreciseTimer);
    m_queue.enqueue(job);
    const QString id = job->id;
    // Signals only from the event loop: the caller has the job id before anything arrives.
    QMetaObject::invokeMethod(this, [this, id] {
        Q_EMIT phaseChanged(id, QStringLiteral("queued"));
        pump();
    }, Qt::QueuedConnection);
}

void Evaluator::cancel(const QString &jobId)
{
    for (qsizetype i = 0; i < m_queue.size(); ++i) {
        if (m_queue.at(i)->id == jobId) {
            m_queue.removeAt(i);
            EvalResult r = failure(EvalStatus::Cancelled, QStringLiteral("cancelled before it started"));
            QMetaObject::invokeMethod(this, [this, jobId, r] { Q_EMIT evaluationFinished(jobId, r); },
                                      Qt::QueuedConnection);
            return;
        }
    }
    if (m_current && m_current->id == jobId)
        finishJob(failure(EvalStatus::Cancelled, QStringLiteral("cancelled while %1")
                                                     .arg(m_current->phase.isEmpty() ? QStringLiteral("waiting")
                                                                                     : m_current->phase)));
}

void Evaluator::pump()
{
    if (m_current || m_queue.isEmpty())
        return;
    m_current = m_queue.dequeue();
    Job &job = *m_current;
    job.wall.start();

    // Inputs are checked before taking the GPU: a typo should not wait behind someone's GRU.
    QString error;
    const auto task = TaskIndex::fromFile(job.req.taskFile, &error);
    if (!task) {
        finishJob(failure(EvalStatus::InternalError, QStringLiteral("bad task: ") + error));
        return;
    }
    job.taskHash = task->sourceHash;
    if (job.kind == Job::Eval && !QFileInfo(job.req.candidateFile).isFile()) {
        finishJob(failure(EvalStatus::InternalError,
                          QStringLiteral("candidate file not found: ") + job.req.candidateFile));
        return;
    }

    job.stage = Job::WaitingLock;
    job.lock = new GpuLock(m_lockKey.isEmpty() ? GpuLock::keyForDevice(job.req.device) : m_lockKey, {}, this);
    connect(job.lock, &GpuLock::acquired, this, &Evaluator::startJob);
    if (!job.lock->tryAcquire()) {
        job.phase = QStringLiteral("waiting_for_gpu");
        Q_EMIT phaseChanged(job.id, job.phase);
        job.lock->acquire();
    } else {
        startJob();
    }
}

WorkerProcess *Evaluator::spawnWorker(const QString &python)
{
    const QString scratch = newScratchDir();
    const Sandbox sb = m_sandboxOn ? Sandbox::detect()
                                   : Sandbox::disabled(QStringLiteral("unsandboxed: sandbox turned off for this evaluator"));
    auto *w = new WorkerProcess(python, scratch, sb, this);
    w->setVisibleDevices(m_visibleDevices);
    w->start();
    return w;
}

WorkerProcess *Evaluator::takeWorker(const QString &python)
{
    WorkerProcess *w = nullptr;
    if (m_warm && !m_warm->hasExited() && m_warm->python() == python) {
        w = m_warm.data();
        m_warm.clear();
    } else {
        discardWarm();
    }
    if (!w)
        w = spawnWorker(python);
    // The next job's worker is started when this one ends (finishJob), not now: its import torch and its two
    // runners' would share this machine's cores with this job's timed frames (on two cores, three processes
    // importing torch beside the frames of a microsecond call).
    m_nextPython = python;
    return w;
}

BaselineCache::Key Evaluator::cacheKeyFor(const Job &job, const QJsonObject &readyInfo)
{
    BaselineCache::Key key;
    const QString gpu = readyInfo.value(QStringLiteral("gpu_name")).toString();
    key.taskHash = job.taskHash;
    // The device the request asks for: a CPU baseline on a GPU machine is not a GPU baseline.
    const bool cuda = readyInfo.value(QStringLiteral("cuda")).toBool() && job.req.device != QLatin1String("cpu");
    key.device = cuda ? QStringLiteral("cuda ") + gpu : QStringLiteral("cpu");
    key.torchVersion = readyInfo.value(QStringLiteral("torch")).toString();
    key.warmup = job.req.warmup;
    key.repeat = job.req.repeat;
    key.seed = job.req.seed;
    key.graph = job.req.graphBaseline;
    return key;
}

void Evaluator::startJob()
{
    if (!m_current || m_current->stage != Job::WaitingLock)
        return;
    Job &job = *m_current;
    job.stage = Job::Starting;
    const QString id = job.id;
    Q_EMIT jobStarted(id);
    if (job.kind == Job::Baseline && job.useCache && knownInterpreters().contains(job.python)) {
        job.cacheKey = cacheKeyFor(job, knownInterpreters().value(job.python));
        if (auto cached = m_cache->lookup(job.cacheKey)) {
            finishJob(fromCache(*cached));
            return;
        }
    }
    job.worker = takeWorker(job.python);
    WorkerProcess *w = job.worker;
    connect(w, &WorkerProcess::event, this, &Evaluator::onWorkerEvent);
    connect(w, &WorkerProcess::finished, this, &Evaluator::onWorkerFinished);
    connect(w, &WorkerProcess::logLine, this, [this, id](const QString &line) { Q_EMIT logLine(id, line); });
    connect(&job.limit, &QTimer::timeout, this, &Evaluator::onLimitPassed);
    if (w->isReady()) {
        onWorkerReady();
        return;
    }
    if (w->hasExited()) {
        onWorkerFinished();
        return;
    }
    job.phase = QStringLiteral("starting_worker");
    Q_EMIT phaseChanged(id, job.phase);
    connect(w, &WorkerProcess::ready, this, &Evaluator::onWorkerReady);
    job.limit.start(StartupLimitSec * 1000);
}

void Evaluator::onWorkerReady()
{
    // Only the current job's worker may start it. startJob() also calls this directly, possibly
    // from inside another object's signal (the GPU lock's acquired()), so the sender is trusted
    // only when it is a worker: any other sender means a direct call.
    auto *from = qobject_cast<WorkerProcess *>(sender());
    if (!m_current || m_current->stage != Job::Starting || (from && from != m_current->worker))
        return;
    Job &job = *m_current;
    WorkerProcess *w = job.worker;
    const QJsonObject info = w->readyInfo();
    knownInterpreters().insert(job.python, info);
    const QString scratch = w->scratchDir();

    // The task is copied next to the candidate: the sandbox hides the host's /tmp, and a task
    // edited while the job runs must not change under the worker.
    const QFileInfo taskInfo(job.req.taskFile);
    QDir(scratch).mkpath(QStringLiteral("task"));
    const QString taskCopy = scratch + QStringLiteral("/task/") + taskInfo.fileName();
    if (!QFile::copy(taskInfo.absoluteFilePath(), taskCopy)) {
        finishJob(failure(EvalStatus::InternalError, QStringLiteral("cannot copy the task into ") + scratch));
        return;
    }

    // A fresh key per request: the worker signs every message with it, and only its signed lines are
    // events (PROTOCOL.md). The candidate's process never sees it.
    QByteArray key(32, Qt::Uninitialized);
    QRandomGenerator::system()->fillRange(reinterpret_cast<quint32 *>(key.data()), key.size() / 4);
    QJsonObject req{{QStringLiteral("v"), 2},
                    {QStringLiteral("id"), job.id},
                    {QStringLiteral("key"), QString::fromLatin1(key.toHex())},
                    {QStringLiteral("task_file"), taskCopy},
                    {QStringLiteral("scratch_dir"), scratch},
                    {QStringLiteral("device"), job.req.device},
                    {QStringLiteral("warmup"), job.req.warmup},
                    {QStringLiteral("seed"), job.req.seed},
                    {QStringLiteral("graph_baseline"), job.req.graphBaseline}};
    if (job.req.repeat > 0)
        req.insert(QStringLiteral("repeat"), job.req.repeat); // else the judge's own count (EvalRequest::repeat)
    if (job.kind == Job::Baseline) {
        job.cacheKey = cacheKeyFor(job, info);
        if (job.useCache) {
            if (auto cached = m_cache->lookup(job.cacheKey)) {
                // The worker did no work: give it back as the warm one when there is none.
                disconnect(w, nullptr, this, nullptr);
                if (!m_warm && m_prestart && QFile::remove(taskCopy)) {
                    m_warm = w;
                    job.worker = nullptr;
                }
                finishJob(fromCache(*cached));
                return;
            }
        }
        req.insert(QStringLiteral("op"), QStringLiteral("baseline"));
    } else {
        const QString candCopy = scratch + QStringLiteral("/candidate.py");
        if (!QFile::copy(QFileInfo(job.req.candidateFile).absoluteFilePath(), candCopy)) {
            finishJob(failure(EvalStatus::InternalError, QStringLiteral("cannot copy the candidate into ") + scratch));
            return;
        }
        req.insert(QStringLiteral("op"), QStringLiteral("eval"));
        req.insert(QStringLiteral("candidate_file"), candCopy);
        req.insert(QStringLiteral("trials"), job.req.trials);
        req.insert(QStringLiteral("atol"), job.req.atol);
        req.insert(QStringLiteral("rtol"), job.req.rtol);
        req.insert(QStringLiteral("baselines"), job.req.baselines);
        req.insert(QStringLiteral("profile"), job.req.profile);
        req.insert(QStringLiteral("integrity"), job.req.integrity);
        req.insert(QStringLiteral("plausible_speedup"), job.req.plausibleSpeedup);
    }
    job.stage = Job::Compiling;
    job.limit.start(qMax(1, job.req.compileTimeoutSec) * 1000);
    if (!w->send(req))
        finishJob(failure(EvalStatus::InternalError, QStringLiteral("cannot write the request to the worker")));
}

void Evaluator::onWorkerEvent(const QJsonObject &ev)
{
    if (!m_current || sender() != m_current->worker || m_current->stage == Job::Done)
        return;
    Job &job = *m_current;
    const QString kind = ev.value(QStringLiteral("event")).toString();
    if (kind == QLatin1String("phase")) {
        job.phase = ev.value(QStringLiteral("phase")).toString();
        if (job.phase == QLatin1String("running") && job.stage == Job::Compiling) {
            job.stage = Job::Running;
            job.limit.start(qMax(1, job.req.runTimeoutSec) * 1000);
        }
        Q_EMIT phaseChanged(job.id, job.phase);
    } else if (kind == QLatin1String("result")) {
        const QJsonObject raw = ev.value(QStringLiteral("result")).toObject();
        if (const QString why = refuseResult(raw, job.req, job.kind == Job::Baseline); !why.isEmpty()) {
            finishJob(failure(EvalStatus::InternalError, QStringLiteral("the worker's result was refused: ") + why));
            return;
        }
        EvalResult r = json::evalResultFromJson(raw);
        if (job.kind == Job::Baseline && r.status == EvalStatus::Ok)
            m_cache->store(job.cacheKey, r);
        finishJob(r);
    } else if (kind == QLatin1String("error")) {
        const QString message = ev.value(QStringLiteral("message")).toString();
        if (job.stage == Job::Starting)
            finishJob(failure(EvalStatus::InternalError,
                              QStringLiteral("the worker could not start with %1: %2 (choose an interpreter that has "
                                             "torch: --python, the setting, or KWB_PYTHON)")
                                  .arg(job.python, message)));
        else
            finishJob(failure(EvalStatus::InternalError, QStringLiteral("worker protocol error: ") + message));
    }
}

void Evaluator::onWorkerFinished()
{
    if (!m_current || m_current->stage == Job::Done)
        return;
    auto *w = qobject_cast<WorkerProcess *>(sender());
    if (w && w != m_current->worker)
        return;
    Job &job = *m_current;
    if (job.stage == Job::Starting) {
        finishJob(failure(EvalStatus::InternalError,
                          QStringLiteral("the worker did not start (%1 %2); check the Python interpreter and torch")
                              .arg(job.python, job.worker->exitDescription())));
        return;
    }
    finishJob(failure(EvalStatus::Crash, QStringLiteral("the worker died without a result (%1) while %2")
                                             .arg(job.worker->exitDescription(),
                                                  job.phase.isEmpty() ? QStringLiteral("starting") : job.phase)));
}

void Evaluator::onLimitPassed()
{
    if (!m_current || m_current->stage == Job::Done)
        return;
    Job &job = *m_current;
    switch (job.stage) {
    case Job::Starting:
        finishJob(failure(EvalStatus::InternalError,
                          QStringLiteral("the worker was not ready after %1 s (import torch hung?)").arg(StartupLimitSec)));
        break;
    case Job::Compiling:
        finishJob(failure(EvalStatus::CompileTimeout,
                          QStringLiteral("compile limit of %1 s passed while %2; the worker was killed")
                              .arg(job.req.compileTimeoutSec).arg(job.phase.isEmpty() ? QStringLiteral("loading") : job.phase)));
        break;
    case Job::Running:
        finishJob(failure(EvalStatus::RunTimeout, QStringLiteral("run limit of %1 s passed while %2; the worker was killed")
                                                      .arg(job.req.runTimeoutSec)
                                                      .arg(job.phase)));
        break;
    default:
        break;
    }
}

void Evaluator::finishJob(EvalResult result)
{
    std::shared_ptr<Job> job = m_current;
    if (!job || job->stage == Job::Done)
        return;
    job->stage = Job::Done;
    job->limit.stop();
    job->limit.disconnect(this);

    const Sandbox sb = m_sandboxOn ? Sandbox::detect() : Sandbox::disabled(QStringLiteral("unsandboxed: sandbox turned off"));
    if (WorkerProcess *w = job->worker) {
        disconnect(w, nullptr, this, nullptr);
        const QString tail = w->logTail();
        // Kill the group even after a clean result: a grandchild the candidate left running dies too.
        w->kill();
        if (!tail.isEmpty())
            result.logTail = tail;
        result.sandboxed = w->sandbox().enabled();
        result.sandboxNote = w->sandbox().note();
        const QString scratch = w->scratchDir();
        // Later: this may run inside one of the worker's own signals.
        w->deleteLater();
        job->worker = nullptr;
        if (!keepScratch())
            QDir(scratch).removeRecursively();
    } else {
        result.sandboxed = sb.enabled();
        result.sandboxNote = sb.note();
    }
    result.wallSeconds = job->wall.isValid() ? job->wall.elapsed() / 1000.0 : 0.0;
    if (job->lock) {
        job->lock->release();
        job->lock->deleteLater();
        job->lock = nullptr;
    }
    m_current.reset();
    if (m_prestart && !m_nextPython.isEmpty())
        prestart(m_nextPython); // the next job's import torch runs while the pipeline asks its LLM
    const QString id = job->id;
    Q_EMIT evaluationFinished(id, result);
    // The next job starts from the event loop, after every receiver has seen this result.
    QMetaObject::invokeMethod(this, &Evaluator::pump, Qt::QueuedConnection);
}

EvalResult Evaluator::runBlocking(const std::function<QString()> &start)
{
    QEventLoop loop;
    QString wanted;
    EvalResult out;
    bool done = false;
    auto c = connect(this, &Evaluator::evaluationFinished, &loop, [&](const QString &id, const EvalResult &r) {
        if (id != wanted)
            return;
        out = r;
        done = true;
        loop.quit();
    });
    wanted = start();
    if (!done)
        loop.exec();
    disconnect(c);
    return out;
}

EvalResult Evaluator::evaluateBlocking(const EvalRequest &req)
{
    return runBlocking([&] { return evaluate(req); });
}

EvalResult Evaluator::baselineBlocking(const EvalRequest &req, bool useCache)
{
    return runBlocking([&] { return baseline(req, useCache); });
}

} // namespace kwb

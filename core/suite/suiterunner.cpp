// SPDX-License-Identifier: MIT
#include "suite/suiterunner.h"

#include "eval/evaluator.h"
#include "gpu/nvml.h"
#include "llm/llmprovider.h"
#include "pipeline/decider.h"
#include "store/runstore.h"
#include "suite/lanepool.h"
#include "suite/slurmevaluator.h"
#include "tasks/taskindex.h"

#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QTimer>

namespace kwb::suite {

// ---- settings -------------------------------------------------------------------------------

QJsonObject SlurmSettings::toJson() const
{
    return {{"partition", partition},  {"account", account},      {"time_limit", timeLimit},
            {"gres", gres},            {"extra_args", QJsonArray::fromStringList(extraArgs)},
            {"exchange_dir", exchangeDir}, {"kwb_binary", kwbBinary}, {"poll_ms", pollMs},
            {"retries", retries}};
}

SlurmSettings SlurmSettings::fromJson(const QJsonObject &o)
{
    SlurmSettings s;
    s.partition = o.value(QLatin1String("partition")).toString();
    s.account = o.value(QLatin1String("account")).toString();
    s.timeLimit = o.value(QLatin1String("time_limit")).toString(s.timeLimit);
    s.gres = o.value(QLatin1String("gres")).toString(s.gres);
    for (const auto &a : o.value(QLatin1String("extra_args")).toArray())
        s.extraArgs << a.toString();
    s.exchangeDir = o.value(QLatin1String("exchange_dir")).toString();
    s.kwbBinary = o.value(QLatin1String("kwb_binary")).toString();
    s.pollMs = o.value(QLatin1String("poll_ms")).toInt(s.pollMs);
    s.retries = o.value(QLatin1String("retries")).toInt(s.retries);
    return s;
}

QJsonObject SuiteConfig::toJson() const
{
    QJsonObject p = pipeline.toSettings();
    p.remove(QStringLiteral("cassette")); // per task
    p.insert(QStringLiteral("max_repairs"), pipeline.maxRepairs);
    p.insert(QStringLiteral("compile_timeout_s"), pipeline.eval.compileTimeoutSec);
    p.insert(QStringLiteral("run_timeout_s"), pipeline.eval.runTimeoutSec);
    return {{"pipeline", p},
            {"provider", QJsonObject{{"provider", provider.provider},
                                     {"model", provider.model},
                                     {"cassette", provider.cassette},
                                     {"lenient", provider.lenient}}},
            {"jobs", jobs},
            {"gpus", QJsonArray::fromStringList(gpus)},
            {"backend", backend},
            {"slurm", slurm.toJson()},
            {"task_timeout_s", taskTimeoutSec}};
}

SuiteConfig SuiteConfig::fromJson(const QJsonObject &o)
{
    SuiteConfig c;
    const QJsonObject p = o.value(QLatin1String("pipeline")).toObject();
    auto &pc = c.pipeline;
    pc.seeds = p.value(QLatin1String("seeds")).toInt(pc.seeds);
    pc.maxRepairs = p.value(QLatin1String("max_repairs")).toInt(pc.maxRepairs);
    pc.scoreThreshold = p.value(QLatin1String("score_threshold")).toDouble(pc.scoreThreshold);
    pc.stages = p.value(QLatin1String("stages")).toBool(pc.stages);
    pc.runDetectors = p.value(QLatin1String("detectors")).toBool(pc.runDetectors);
    if (const auto g = pipeline::gatePolicyFromString(p.value(QLatin1String("gate_policy")).toString()))
        pc.gatePolicy = *g;
    pc.eval.device = p.value(QLatin1String("device")).toString(pc.eval.device);
    pc.eval.trials = p.value(QLatin1String("trials")).toInt(pc.eval.trials);
    pc.eval.warmup = p.value(QLatin1String("warmup")).toInt(pc.eval.warmup);
    pc.eval.repeat = p.value(QLatin1String("repeat")).toInt(pc.eval.repeat);
    pc.eval.atol = p.value(QLatin1String("atol")).toDouble(pc.eval.atol);
    pc.eval.rtol = p.value(QLatin1String("rtol")).toDouble(pc.eval.rtol);
    pc.eval.compileTimeoutSec = p.value(QLatin1String("compile_timeout_s")).toInt(pc.eval.compileTimeoutSec);
    pc.eval.runTimeoutSec = p.value(QLatin1String("run_timeout_s")).toInt(pc.eval.runTimeoutSec);
    pc.backend = p.value(QLatin1String("backend")).toString(pc.backend);
    const QJsonObject pr = o.value(QLatin1String("provider")).toObject();
    c.provider.provider = pr.value(QLatin1String("provider")).toString();
    c.provider.model = pr.value(QLatin1String("model")).toString();
    c.provider.cassette = pr.value(QLatin1String("cassette")).toString();
    c.provider.lenient = pr.value(QLatin1String("lenient")).toBool();
    c.jobs = o.value(QLatin1String("jobs")).toInt(1);
    for (const auto &g : o.value(QLatin1String("gpus")).toArray())
        c.gpus << g.toString();
    c.backend = o.value(QLatin1String("backend")).toString(c.backend);
    c.slurm = SlurmSettings::fromJson(o.value(QLatin1String("slurm")).toObject());
    c.taskTimeoutSec = o.value(QLatin1String("task_timeout_s")).toInt();
    return c;
}

QStringList hostGpus()
{
    const QString visible = qEnvironmentVariable("CUDA_VISIBLE_DEVICES");
    if (qEnvironmentVariableIsSet("CUDA_VISIBLE_DEVICES")) {
        QStringList out;
        for (const auto &d : visible.split(QLatin1Char(','), Qt::SkipEmptyParts))
            out << d.trimmed();
        return out;
    }
    QStringList out;
    for (const auto &d : gpu::Nvml::shared().query().devices)
        out << QString::number(d.index);
    return out;
}

// ---- the runner -----------------------------------------------------------------------------

struct SuiteRunner::Active {
    std::unique_ptr<llm::LlmProvider> provider;
    std::unique_ptr<pipeline::Pipeline> pipeline;
    pipeline::AutomaticDecider decider;
    QElapsedTimer wall;
    QTimer limit;
    double wallBefore = 0;
};

SuiteRunner::SuiteRunner(SuiteConfig config, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
{
    m_config.jobs = std::max(1, m_config.jobs);
}

SuiteRunner::~SuiteRunner()
{
    abort();
}

pipeline::Pipeline *SuiteRunner::pipelineOf(int index) const
{
    const Active *a = m_active.value(index);
    return a ? a->pipeline.get() : nullptr;
}

QString SuiteRunner::runDirectoryOf(int index) const
{
    const QString rel = m_suite.entries.value(index).runDir;
    return rel.isEmpty() ? QString() : QDir(m_config.suiteDir).absoluteFilePath(rel);
}

void SuiteRunner::buildLanes()
{
    m_pool = new LanePool(this);
    if (m_config.backend == QLatin1String("slurm")) {
        // The cluster schedules the GPUs: one backend submitting every evaluation as it comes.
        const QString exchange = m_config.slurm.exchangeDir.isEmpty()
                                     ? QDir(m_config.suiteDir).filePath(QStringLiteral("slurm"))
                                     : m_config.slurm.exchangeDir;
        m_pool->addLane(new SlurmEvaluator(m_config.slurm, exchange));
        return;
    }
    if (m_localBackend) {
        m_pool->addLane(m_localBackend());
        return;
    }
    if (m_config.gpus.isEmpty() || m_config.pipeline.eval.device == QLatin1String("cpu")) {
        m_pool->addLane(new Evaluator);
        return;
    }
    for (const auto &g : std::as_const(m_config.gpus)) {
        auto *e = new Evaluator;
        e->setLane(g, QStringLiteral("gpu") + g);
        m_pool->addLane(e, QStringLiteral("cuda"));
    }
}

bool SuiteRunner::start(const QStringList &taskFiles, QString *error)
{
    if (isSuiteDirectory(m_config.suiteDir)) {
        if (error)
            *error = QStringLiteral("%1 already holds a suite: resume it (--resume) or choose another folder")
                         .arg(m_config.suiteDir);
        return false;
    }
    if (taskFiles.isEmpty()) {
        if (error)
            *error = QStringLiteral("no tasks");
        return false;
    }
    m_suite = Suite{};
    m_suite.createdAt = QDateTime::currentDateTimeUtc();
    m_suite.settings = m_config.toJson();
    for (const auto &file : taskFiles) {
        SuiteEntry e;
        e.taskFile = QFileInfo(file).absoluteFilePath();
        e.taskName = QFileInfo(file).completeBaseName();
        e.level = TaskIndex::levelOf(file);
        m_suite.entries.append(e);
    }
    return begin(error);
}

bool SuiteRunner::resume(QString *error)
{
    auto s = readSuite(m_config.suiteDir, error);
    if (!s)
        return false;
    m_suite = *s;
    // A run that ended while suite.json was not yet rewritten: take its result as it is.
    for (int i = 0; i < m_suite.entries.size(); ++i) {
        SuiteEntry &e = m_suite.entries[i];
        if (e.done())
            continue;
        const QString dir = runDirectoryOf(i);
        std::optional<Run> run;
        if (!dir.isEmpty() && store::isRunDirectory(dir))
            run = store::openRun(dir);
        if (run && (run->info.state == RunState::Finished || run->info.state == RunState::Failed)) {
            summarizeRun(*run, e);
            e.state = run->info.state == RunState::Finished ? EntryState::Finished : EntryState::Failed;
            if (e.state == EntryState::Failed)
                e.failureReason = run->info.note;
        } else {
            e.state = EntryState::Pending;
        }
    }
    return begin(error);
}

bool SuiteRunner::begin(QString *error)
{
    if (!writeSuite(m_config.suiteDir, m_suite, error))
        return false;
    m_started = true;
    buildLanes();
    QTimer::singleShot(0, this, &SuiteRunner::launchNext);
    return true;
}

bool SuiteRunner::runBlocking(const QStringList &taskFiles, bool resumeSuite, QString *error)
{
    if (!(resumeSuite ? resume(error) : start(taskFiles, error)))
        return false;
    if (!m_finished) {
        QEventLoop loop;
        connect(this, &SuiteRunner::finished, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return true;
}

void SuiteRunner::launchNext()
{
    if (m_finished)
        return;
    if (m_stopping) {
        checkDone();
        return;
    }
    for (int i = 0; i < m_suite.entries.size() && m_active.size() < m_config.jobs; ++i)
        if (m_suite.entries.at(i).state == EntryState::Pending || m_suite.entries.at(i).state == EntryState::Stopped)
            if (!m_active.contains(i))
                startTask(i);
    checkDone();
}

void SuiteRunner::checkDone()
{
    if (m_finished || !m_active.isEmpty())
        return;
    for (const auto &e : std::as_const(m_suite.entries))
        if (!m_stopping && (e.state == EntryState::Pending || e.state == EntryState::Running))
            return;
    m_finished = true;
    emit finished();
}

void SuiteRunner::startTask(int index)
{
    SuiteEntry &e = m_suite.entries[index];
    auto *a = new Active;
    m_active.insert(index, a);
    a->wallBefore = e.wallSeconds;
    a->wall.start();
    ++e.attempts;
    e.failureReason.clear();
    e.state = EntryState::Running;

    pipeline::ProviderRequest req = m_config.provider;
    req.taskFile = e.taskFile;
    pipeline::ProviderSetup setup = pipeline::setUpProvider(req);
    if (!setup) {
        failTask(index, setup.errorText);
        return;
    }
    a->provider = std::move(setup.provider);

    pipeline::PipelineConfig pc = m_config.pipeline;
    pc.taskFile = e.taskFile;
    pc.runsDir = QDir(m_config.suiteDir).filePath(QStringLiteral("runs"));
    pc.cassette = setup.cassette;
    if (const QString dir = runDirectoryOf(index); !dir.isEmpty() && store::isRunDirectory(dir))
        pc.resumeDir = dir;
    a->pipeline = std::make_unique<pipeline::Pipeline>(pc, a->provider.get(), m_pool);
    auto *p = a->pipeline.get();
    p->setDecider(&a->decider);
    const QString name = e.taskName;
    connect(p, &pipeline::Pipeline::logLine, this, [this, name](const QString &l) {
        emit logLine(QStringLiteral("[%1] %2").arg(name, l));
    });
    connect(p, &pipeline::Pipeline::candidateUpdated, this, [this, index] { refresh(index); });
    connect(p, &pipeline::Pipeline::finished, this, [this, index](RunState s) { onTaskFinished(index, s); },
            Qt::QueuedConnection);
    QString err;
    if (!p->start(&err)) {
        failTask(index, err.isEmpty() ? QStringLiteral("the run did not start") : err);
        return;
    }
    e.runDir = QDir(m_config.suiteDir).relativeFilePath(p->runDirectory());
    if (m_config.taskTimeoutSec > 0) {
        a->limit.setSingleShot(true);
        connect(&a->limit, &QTimer::timeout, this, [this, index] {
            if (Active *act = m_active.value(index))
                act->pipeline->abort();
            failTask(index, QStringLiteral("time limit of %1 s passed; run aborted").arg(m_config.taskTimeoutSec));
        });
        a->limit.start(m_config.taskTimeoutSec * 1000);
    }
    save();
    emit entryChanged(index, e);
    emit pipelineStarted(index, p);
}

void SuiteRunner::refresh(int index)
{
    Active *a = m_active.value(index);
    if (!a || !a->pipeline)
        return;
    SuiteEntry &e = m_suite.entries[index];
    summarizeRun(a->pipeline->run(), e);
    e.wallSeconds = a->wallBefore + a->wall.elapsed() / 1000.0;
    save();
    emit entryChanged(index, e);
}

void SuiteRunner::onTaskFinished(int index, RunState state)
{
    Active *a = m_active.value(index);
    if (!a)
        return;
    SuiteEntry &e = m_suite.entries[index];
    summarizeRun(a->pipeline->run(), e);
    e.wallSeconds = a->wallBefore + a->wall.elapsed() / 1000.0;
    switch (state) {
    case RunState::Finished: e.state = EntryState::Finished; break;
    case RunState::Stopped: e.state = EntryState::Stopped; break;
    default:
        e.state = EntryState::Failed;
        e.failureReason = a->pipeline->run().info.note.isEmpty() ? QStringLiteral("the run failed")
                                                                  : a->pipeline->run().info.note;
        break;
    }
    if (e.state == EntryState::Finished && !e.correct)
        e.failureReason = e.candidates == 0 ? QStringLiteral("no candidate was generated")
                                            : QStringLiteral("no correct candidate");
    m_active.remove(index);
    a->limit.stop();
    a->pipeline->disconnect(this);
    // Deleted from the event loop: we are inside one of its signals.
    QTimer::singleShot(0, this, [a] { delete a; });
    save();
    emit entryChanged(index, e);
    QTimer::singleShot(0, this, &SuiteRunner::launchNext);
}

void SuiteRunner::failTask(int index, const QString &reason)
{
    SuiteEntry &e = m_suite.entries[index];
    if (Active *a = m_active.take(index)) {
        e.wallSeconds = a->wallBefore + a->wall.elapsed() / 1000.0;
        if (a->pipeline) {
            summarizeRun(a->pipeline->run(), e);
            a->pipeline->disconnect(this);
        }
        a->limit.stop();
        QTimer::singleShot(0, this, [a] { delete a; });
    }
    e.state = EntryState::Failed;
    e.failureReason = reason;
    emit logLine(QStringLiteral("[%1] failed: %2").arg(e.taskName, reason));
    save();
    emit entryChanged(index, e);
    QTimer::singleShot(0, this, &SuiteRunner::launchNext);
}

void SuiteRunner::save()
{
    QString err;
    if (!writeSuite(m_config.suiteDir, m_suite, &err) && err != m_saveError) {
        m_saveError = err;
        emit logLine(QStringLiteral("[suite] ") + err);
    }
}

void SuiteRunner::stop()
{
    if (!m_started || m_finished)
        return;
    m_stopping = true;
    for (Active *a : std::as_const(m_active))
        a->pipeline->stop();
    checkDone();
}

void SuiteRunner::abort()
{
    for (Active *a : std::as_const(m_active)) {
        if (a->pipeline) {
            a->pipeline->disconnect(this);
            a->pipeline->abort();
        }
        delete a;
    }
    m_active.clear();
    delete m_pool; // the lanes' evaluators kill their workers
    m_pool = nullptr;
}

} // namespace kwb::suite

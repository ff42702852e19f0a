// SPDX-License-Identifier: MIT
// Prompt templates: golden renderings of the shipped prompts, missing values, includes,
// sections, the user override folder and the per-run snapshot.
// Regenerate the golden files with tests/data/prompts/regenerate.sh.
#include "prompts/promptlibrary.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;
using namespace kwb::prompts;

namespace {
const QString kBuiltin = QStringLiteral(KWB_SOURCE_DIR "/prompts");
const QString kData = QStringLiteral(KWB_TEST_DATA "/prompts");

QString readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

bool writeFile(const QString &path, const QString &text)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text.toUtf8()) >= 0;
}

QHash<QString, QString> commonVars()
{
    return {{"task_source", readFile(kData + "/task.py").trimmed()},
            {"code", readFile(kData + "/kernel.py").trimmed()},
            {"gpu_name", "NVIDIA H100 80GB HBM3"},
            {"backend", "triton"},
            {"error_log", "triton.compiler.errors.CompilationError: at 12:8:\nAttributeError: module "
                          "'triton.language' has no attribute 'tanh'"},
            {"error_history", ""},
            {"profile_metrics", "- sm__throughput.avg.pct_of_peak_sustained_elapsed: 3.1\n- launches per forward: 1536"},
            {"current_latency_ms", "412.0"},
            {"eager_latency_ms", "48.7"},
            {"graph_latency_ms", "9.02"},
            {"analysis", "- Worth optimizing: yes\n- Bottleneck: one launch per time step"},
            {"output_requirement", "final_hidden_only"},
            {"detector_notes", ""}};
}
} // namespace

class TstPromptLibrary : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void shippedTemplatesExist()
    {
        const PromptLibrary lib(kBuiltin, QStringLiteral("/nonexistent"));
        const QStringList names = lib.templateNames();
        for (const char *n : {"system", "seed", "repair", "analysis", "optimize", "stage_grid", "stage_block",
                              "stage_memory", "snippets/rnn_hybrid", "snippets/triton_pitfalls",
                              "snippets/output_requirement"})
            QVERIFY2(names.contains(QLatin1String(n)), n);
        QVERIFY(!names.contains(QStringLiteral("README")));
    }

    void placeholdersOfEachTemplate_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("seed") << "seed" << QStringList{"backend", "gpu_name", "task_source"};
        QTest::newRow("repair") << "repair"
                                << QStringList{"backend", "code", "error_history", "error_log", "gpu_name", "task_source"};
        QTest::newRow("analysis") << "analysis"
                                  << QStringList{"code", "current_latency_ms", "eager_latency_ms", "gpu_name",
                                                 "graph_latency_ms", "profile_metrics", "task_source"};
        QTest::newRow("optimize") << "optimize"
                                  << QStringList{"analysis", "backend", "code", "gpu_name", "output_requirement",
                                                 "task_source"};
        for (const char *stage : {"stage_grid", "stage_block", "stage_memory"})
            QTest::newRow(stage) << stage
                                 << QStringList{"backend", "code", "current_latency_ms", "detector_notes", "gpu_name",
                                                "task_source"};
    }
    void placeholdersOfEachTemplate()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, expected);
        const PromptLibrary lib(kBuiltin, QStringLiteral("/nonexistent"));
        QString error;
        QCOMPARE(lib.placeholders(name, &error), expected);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void goldenFiles_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("golden");
        QTest::addColumn<QString>("overrides"); // key=value;key=value
        QTest::newRow("seed triton") << "seed" << "seed_triton" << "";
        QTest::newRow("seed cuda") << "seed" << "seed_cuda" << "backend=cuda";
        QTest::newRow("repair") << "repair" << "repair" << "";
        QTest::newRow("repair with history")
            << "repair" << "repair_history"
            << "error_history=1. tl.arange bound is not a constexpr\n2. unsupported tensor index";
        QTest::newRow("analysis") << "analysis" << "analysis" << "";
        QTest::newRow("optimize") << "optimize" << "optimize" << "";
        QTest::newRow("stage_grid") << "stage_grid" << "stage_grid"
                                    << "detector_notes=- grid over batch only (2 programs)";
        QTest::newRow("stage_block") << "stage_block" << "stage_block" << "";
        QTest::newRow("stage_memory") << "stage_memory" << "stage_memory" << "";
        QTest::newRow("system") << "system" << "system" << "";
    }
    void goldenFiles()
    {
        QFETCH(QString, name);
        QFETCH(QString, golden);
        QFETCH(QString, overrides);
        auto vars = commonVars();
        if (!overrides.isEmpty()) {
            const qsizetype eq = overrides.indexOf(QLatin1Char('='));
            vars.insert(overrides.left(eq), overrides.mid(eq + 1));
        }
        const PromptLibrary lib(kBuiltin, QStringLiteral("/nonexistent"));
        QString error;
        const QString text = lib.render(name, vars, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const QString file = kData + QStringLiteral("/golden/") + golden + QStringLiteral(".md");
        if (qEnvironmentVariableIsSet("KWB_REGENERATE_PROMPTS")) {
            QVERIFY(writeFile(file, text));
            return;
        }
        QCOMPARE(text, readFile(file));
    }

    void contentThatMatters()
    {
        const PromptLibrary lib(kBuiltin, QStringLiteral("/nonexistent"));
        const auto vars = commonVars();
        // The lesson of 40_GRUHidden: the optimize prompt always carries the reference.
        const QString optimize = lib.render(QStringLiteral("optimize"), vars);
        QVERIFY(optimize.contains(QStringLiteral("return h_n")));
        QVERIFY(optimize.contains(QStringLiteral("final_hidden_only")));
        const QString seed = lib.render(QStringLiteral("seed"), vars);
        QVERIFY(seed.contains(QStringLiteral("no `tl.tanh`")));
        QVERIFY(seed.contains(QStringLiteral("input_precision=\"ieee\"")));
        QVERIFY(seed.contains(QStringLiteral("batch tiles × hidden tiles")));
        QVERIFY(!seed.contains(QStringLiteral("{{"))); // every tag was rendered
        QVERIFY(!seed.contains(QStringLiteral("${")));
        const QString analysis = lib.render(QStringLiteral("analysis"), vars);
        for (const char *field : {"worth_optimizing", "implementation_complexity", "kernel_type", "output_requirement",
                                  "48.7", "9.02", "launches per forward"})
            QVERIFY2(analysis.contains(QLatin1String(field)), field);
        QVERIFY(lib.render(QStringLiteral("repair"), vars).contains(QStringLiteral("has no attribute 'tanh'")));
    }

    void valuesAreNotRescanned()
    {
        const PromptLibrary lib(kBuiltin, QStringLiteral("/nonexistent"));
        QString error;
        const QString text = lib.render(QStringLiteral("repair"), commonVars(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(text.contains(QStringLiteral("{{not_a_placeholder}}"))); // from kernel.py, verbatim
    }

    void missingValueNamesIt()
    {
        const PromptLibrary lib(kBuiltin, QStringLiteral("/nonexistent"));
        auto vars = commonVars();
        vars.remove(QStringLiteral("gpu_name"));
        QString error;
        QVERIFY(lib.render(QStringLiteral("seed"), vars, &error).isEmpty());
        QVERIFY2(error.contains(QStringLiteral("{{gpu_name}}")), qPrintable(error));
        QVERIFY(error.contains(QStringLiteral("'seed'")));
        // Inside an included snippet: the snippet is named.
        vars = commonVars();
        vars.remove(QStringLiteral("output_requirement"));
        QVERIFY(lib.render(QStringLiteral("optimize"), vars, &error).isEmpty());
        QVERIFY2(error.contains(QStringLiteral("snippets/output_requirement")), qPrintable(error));
        QVERIFY(error.contains(QStringLiteral("{{output_requirement}}")));
        // A computed include with a value that has no file.
        vars = commonVars();
        vars.insert(QStringLiteral("backend"), QStringLiteral("opencl"));
        QVERIFY(lib.render(QStringLiteral("seed"), vars, &error).isEmpty());
        QVERIFY2(error.contains(QStringLiteral("snippets/backend_opencl")), qPrintable(error));
        QVERIFY(lib.render(QStringLiteral("no_such_template"), vars, &error).isEmpty());
        QVERIFY(error.contains(QStringLiteral("no_such_template")));
    }

    void syntax_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("error");
        QTest::newRow("value") << "a {{x}} b" << "a 1 b" << "";
        QTest::newRow("spaces") << "a {{ x }} b" << "a 1 b" << "";
        QTest::newRow("section kept") << "a\n{{#x}}\nX={{x}}\n{{/x}}\nb" << "a\nX=1\nb" << "";
        QTest::newRow("section dropped") << "a\n{{#empty}}\nE\n{{/empty}}\nb" << "a\nb" << "";
        QTest::newRow("comment") << "{{! note }}\nbody" << "body" << "";
        QTest::newRow("include") << "[{{> inc}}]" << "[included 1]" << "";
        QTest::newRow("missing") << "{{nope}}" << "" << "{{nope}}";
        QTest::newRow("unclosed") << "{{#x}} open" << "" << "never closed";
        QTest::newRow("stray close") << "{{/x}}" << "" << "closes no open section";
        QTest::newRow("cycle") << "{{> loop_a}}" << "" << "cycle";
    }
    void syntax()
    {
        QFETCH(QString, source);
        QFETCH(QString, expected);
        QFETCH(QString, error);
        QTemporaryDir dir;
        QVERIFY(writeFile(dir.filePath("t.md"), source));
        QVERIFY(writeFile(dir.filePath("inc.md"), "included {{x}}\n"));
        QVERIFY(writeFile(dir.filePath("loop_a.md"), "{{> loop_b}}"));
        QVERIFY(writeFile(dir.filePath("loop_b.md"), "{{> loop_a}}"));
        const PromptLibrary lib(dir.path(), QStringLiteral("/nonexistent"));
        QString err;
        const QString out = lib.render(QStringLiteral("t"), {{"x", "1"}, {"empty", ""}}, &err);
        if (error.isEmpty()) {
            QVERIFY2(err.isEmpty(), qPrintable(err));
            QCOMPARE(out, expected);
        } else {
            QVERIFY2(err.contains(error), qPrintable(err));
            QVERIFY(out.isEmpty());
        }
    }

    void userFolderShadowsByName()
    {
        QTemporaryDir user;
        QVERIFY(writeFile(user.filePath("snippets/triton_pitfalls.md"), "MY OWN PITFALLS for {{gpu_name}}\n"));
        QVERIFY(writeFile(user.filePath("extra.md"), "only mine\n"));
        const PromptLibrary lib(kBuiltin, user.path());
        QVERIFY(lib.templateNames().contains(QStringLiteral("extra")));
        QCOMPARE(lib.templateFile(QStringLiteral("snippets/triton_pitfalls")),
                 user.filePath("snippets/triton_pitfalls.md"));
        const QString seed = lib.render(QStringLiteral("seed"), commonVars());
        QVERIFY(seed.contains(QStringLiteral("MY OWN PITFALLS for NVIDIA H100")));
        QVERIFY(!seed.contains(QStringLiteral("no `tl.tanh`")));
        QVERIFY(seed.contains(QStringLiteral("batch tiles × hidden tiles"))); // the rest is shipped
    }

    void renderMessagesHasSystemTurn()
    {
        const PromptLibrary lib(kBuiltin, QStringLiteral("/nonexistent"));
        QString error;
        const auto messages = lib.renderMessages(QStringLiteral("seed"), commonVars(), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(messages.size(), 2);
        QCOMPARE(messages.at(0).role, QStringLiteral("system"));
        QCOMPARE(messages.at(1).role, QStringLiteral("user"));
        QVERIFY(messages.at(1).content.startsWith(QStringLiteral("# Task")));
    }

    void snapshotIsTheEffectiveSet()
    {
        QTemporaryDir user;
        QTemporaryDir out;
        QVERIFY(writeFile(user.filePath("seed.md"), "my seed {{task_source}}\n"));
        const PromptLibrary lib(kBuiltin, user.path());
        QString error;
        QVERIFY2(lib.snapshotTo(out.filePath("prompts"), &error), qPrintable(error));
        QCOMPARE(readFile(out.filePath("prompts/seed.md")), QStringLiteral("my seed {{task_source}}\n"));
        QCOMPARE(readFile(out.filePath("prompts/snippets/rnn_hybrid.md")),
                 readFile(kBuiltin + QStringLiteral("/snippets/rnn_hybrid.md")));
        const QJsonObject manifest
            = QJsonDocument::fromJson(readFile(out.filePath("prompts/manifest.json")).toUtf8()).object().value("templates").toObject();
        QCOMPARE(manifest.value("seed").toObject().value("origin").toString(), QStringLiteral("user"));
        QCOMPARE(manifest.value("repair").toObject().value("origin").toString(), QStringLiteral("builtin"));
        QCOMPARE(manifest.value("seed").toObject().value("sha256").toString().size(), 64);
        // The snapshot is itself a library that renders the same prompts.
        const PromptLibrary snap(out.filePath("prompts"), QStringLiteral("/nonexistent"));
        QCOMPARE(snap.templateNames(), lib.templateNames());
        QCOMPARE(snap.render(QStringLiteral("repair"), commonVars()), lib.render(QStringLiteral("repair"), commonVars()));
    }
};

QTEST_GUILESS_MAIN(TstPromptLibrary)
#include "tst_promptlibrary.moc"

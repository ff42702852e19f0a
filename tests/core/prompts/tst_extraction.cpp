// SPDX-License-Identifier: MIT
// Extraction of the kernel code and of the analysis JSON from LLM answers, table-driven.
#include "prompts/extraction.h"

#include <QTest>

using namespace kwb::prompts;

namespace {
const QString kModelNew = QStringLiteral("import torch\nclass ModelNew(torch.nn.Module):\n    pass");
}

class TstExtraction : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void code_data()
    {
        QTest::addColumn<QString>("response");
        QTest::addColumn<QString>("expectedCode"); // empty: an error is expected
        QTest::addColumn<QString>("expectedError");
        QTest::addColumn<int>("blocks");

        QTest::newRow("python fence") << "Here:\n```python\n" + kModelNew + "\n```\nDone." << kModelNew << "" << 1;
        QTest::newRow("py fence") << "```py\n" + kModelNew + "\n```" << kModelNew << "" << 1;
        QTest::newRow("bare fence") << "```\n" + kModelNew + "\n```" << kModelNew << "" << 1;
        QTest::newRow("CRLF") << "text\r\n```python\r\nimport torch\r\nclass ModelNew: pass\r\n```\r\n"
                              << "import torch\nclass ModelNew: pass" << "" << 1;
        QTest::newRow("tilde fence") << "~~~python\n" + kModelNew + "\n~~~" << kModelNew << "" << 1;
        QTest::newRow("indented fence") << "  ```python\n" + kModelNew + "\n  ```" << kModelNew << "" << 1;
        QTest::newRow("ModelNew wins over longer")
            << "```python\n# helper\n" + QString(200, QLatin1Char('x')) + "\n```\nand\n```python\n" + kModelNew + "\n```"
            << kModelNew << "" << 2;
        QTest::newRow("longest without ModelNew")
            << "```python\nshort = 1\n```\n```python\nlonger = 1\nlonger += 2\n```"
            << "longer = 1\nlonger += 2" << "" << 2;
        QTest::newRow("cpp and python blocks")
            << "```cpp\n__global__ void k() {}\n// a long CUDA source that is longer than the python one\n```\n"
               "```python\n" + kModelNew + "\n```"
            << kModelNew << "" << 2;
        QTest::newRow("mislabelled block with ModelNew") << "```cuda\n" + kModelNew + "\n```" << kModelNew << "" << 1;
        QTest::newRow("only json") << "```json\n{\"a\": 1}\n```" << "" << "no Python code block" << 1;
        QTest::newRow("unfenced code")
            << "Sure, here is the code.\n\n" + kModelNew + "\n\nThis should be fast." << kModelNew << "" << 0;
        QTest::newRow("unfenced bare file") << kModelNew << kModelNew << "" << 0;
        QTest::newRow("truncated fence") << "```python\n" + kModelNew << kModelNew << "" << 1;
        QTest::newRow("no code") << "I am sorry, I cannot help with that kernel." << "" << "no code" << 0;
        QTest::newRow("empty") << "   \n" << "" << "empty" << 0;
        QTest::newRow("fence with attributes") << "```python title=\"kernel.py\"\n" + kModelNew + "\n```" << kModelNew
                                               << "" << 1;
    }
    void code()
    {
        QFETCH(QString, response);
        QFETCH(QString, expectedCode);
        QFETCH(QString, expectedError);
        QFETCH(int, blocks);
        const CodeExtraction r = extractCode(response);
        QCOMPARE(r.blocks, blocks);
        if (expectedError.isEmpty()) {
            QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
            QCOMPARE(r.code, expectedCode);
            QCOMPARE(r.definesModelNew, expectedCode.contains(QStringLiteral("class ModelNew")));
        } else {
            QVERIFY(r.code.isEmpty());
            QVERIFY2(r.error.contains(expectedError), qPrintable(r.error));
        }
    }

    void analysis_data()
    {
        QTest::addColumn<QString>("response");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<bool>("worth");
        QTest::addColumn<QString>("complexity");
        QTest::addColumn<QString>("output");
        QTest::addColumn<QString>("expectedError");

        const QString full = QStringLiteral(R"({"worth_optimizing": "yes", "reason": "launch-bound",
 "bottleneck": "3 launches per step", "optimisation_method": "persistent kernel",
 "modification_plan": "1. fuse", "expected_speedup": "5x", "implementation_complexity": "persistent",
 "kernel_type": "fused recurrent", "output_requirement": "final_hidden_only"})");
        QTest::newRow("plain") << full << true << true << "persistent" << "final_hidden_only" << "";
        QTest::newRow("fenced with text") << "Analysis follows.\n```json\n" + full + "\n```\nHope this helps {really}."
                                          << true << true << "persistent" << "final_hidden_only" << "";
        QTest::newRow("trailing text unfenced") << "Result: " + full + " -- that is my answer." << true << true
                                                << "persistent" << "final_hidden_only" << "";
        QTest::newRow("trailing commas")
            << R"({"worth_optimizing": true, "implementation_complexity": "High", "plan": ["a", "b",],})" << true << true
            << "high" << "" << "";
        QTest::newRow("single quotes")
            << R"({'worth_optimizing': 'no', 'reason': 'already at the graph baseline', 'output_requirement': 'full sequence'})"
            << true << false << "" << "full_sequence" << "";
        QTest::newRow("comments")
            << "{\n  // the verdict\n  \"worth_optimizing\": \"yes\", /* why */ \"reason\": \"x // not a comment\"\n}"
            << true << true << "" << "" << "";
        QTest::newRow("python literals") << R"({"worth_optimizing": True, "kernel_type": None, "complexity": "medium"})"
                                         << true << true << "medium" << "" << "";
        QTest::newRow("bare keys and spaces")
            << R"({worth_optimizing: "yes", "Optimization Method": "tl.dot tiles", "Output-Requirement": "h_n only"})"
            << true << true << "" << "final_hidden_only" << "";
        QTest::newRow("raw newline in string") << "{\"worth_optimizing\": \"yes\", \"plan\": \"1. a\n2. b\"}" << true
                                               << true << "" << "" << "";
        QTest::newRow("no json") << "The kernel looks fine to me." << false << false << "" << ""
                                 << "no JSON object";
        QTest::newRow("json without verdict") << R"({"reason": "x"})" << false << false << "" << ""
                                              << "worth_optimizing";
        QTest::newRow("broken json") << R"({"worth_optimizing": "yes", "reason": )" << false << false << "" << ""
                                     << "does not parse";
        QTest::newRow("unclear verdict") << R"({"worth_optimizing": "maybe"})" << false << false << "" << ""
                                         << "neither yes nor no";
    }
    void analysis()
    {
        QFETCH(QString, response);
        QFETCH(bool, ok);
        QFETCH(bool, worth);
        QFETCH(QString, complexity);
        QFETCH(QString, output);
        QFETCH(QString, expectedError);
        QString error;
        const auto a = extractAnalysis(response, &error);
        QCOMPARE(a.has_value(), ok);
        if (!ok) {
            QVERIFY2(error.contains(expectedError), qPrintable(error));
            return;
        }
        QCOMPARE(a->worthOptimizing, worth);
        QCOMPARE(a->implementationComplexity, complexity);
        QCOMPARE(a->outputRequirement, output);
        QVERIFY(!a->raw.isEmpty());
    }

    void analysisFields()
    {
        const auto a = extractAnalysis(QStringLiteral(
            R"({"worth_optimizing": "yes", "reason": "launch-bound", "bottleneck": "launches",
                "optimization method": "persistent kernel", "modification plan": ["fuse", "tile"],
                "expected_speedup": 4.5, "kernel_type": "recurrent"})"));
        QVERIFY(a);
        QCOMPARE(a->reason, QStringLiteral("launch-bound"));
        QCOMPARE(a->method, QStringLiteral("persistent kernel"));
        QCOMPARE(a->plan, QStringLiteral("fuse\ntile"));
        QCOMPARE(a->expectedSpeedup, QStringLiteral("4.5"));
        QCOMPARE(a->kernelType, QStringLiteral("recurrent"));
        const QString text = formatAnalysis(*a);
        QVERIFY(text.contains(QStringLiteral("- Worth optimizing: yes")));
        QVERIFY(text.contains(QStringLiteral("- Optimisation method: persistent kernel")));
    }
};

QTEST_GUILESS_MAIN(TstExtraction)
#include "tst_extraction.moc"

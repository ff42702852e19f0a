// SPDX-License-Identifier: MIT
// The task index on the shipped tasks/ and on a user folder with a foreign and a broken file.
#include "env/locations.h"
#include "tasks/taskindex.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace kwb;

namespace {

void write(const QString &path, const QByteArray &text)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

// A file in the exact shape of a KernelBench level-1 problem, as a user would drop it in.
const QByteArray kForeign = R"(import torch
import torch.nn as nn

class Model(nn.Module):
    """
    Simple model that performs a single square matrix multiplication (C = A * B)
    """
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)

N = 2048

def get_inputs():
    A = torch.randn(N, N)
    B = torch.randn(N, N)
    return [A, B]

def get_init_inputs():
    return []  # No special initialization inputs needed
)";

} // namespace

class TestTaskIndex : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void shippedTasks()
    {
        qputenv("KWB_DATA_DIR", KWB_SOURCE_DIR);
        TaskIndex index(true);
        const QList<Task> tasks = index.tasks();
        QVERIFY2(tasks.size() >= 8, qPrintable(QString::number(tasks.size())));
        QVERIFY2(index.problems().isEmpty(), qPrintable(index.problems().join(QLatin1Char('\n'))));

        const auto gru = index.find(QStringLiteral("39_GRU"));
        QVERIFY(gru);
        QCOMPARE(gru->level, 3);
        QCOMPARE(gru->family, QStringLiteral("gru"));
        QCOMPARE(gru->sourceHash.size(), 64);
        QFile f(gru->path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(gru->sourceHash,
                 QString::fromLatin1(QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex()));

        const auto lstm = index.find(QStringLiteral("35_lstm")); // case-insensitive when unique
        QVERIFY(lstm);
        QCOMPARE(lstm->family, QStringLiteral("lstm"));
        QCOMPARE(lstm->level, 3);

        const auto relu = index.find(QStringLiteral("1_ReLU"));
        QVERIFY(relu);
        QCOMPARE(relu->level, 1);
        QCOMPARE(relu->family, QStringLiteral("elementwise"));
        // By path, too.
        const auto byPath = index.find(relu->path);
        QVERIFY(byPath);
        QCOMPARE(byPath->name, relu->name);

        // Sorted by level: every level-1 task before every level-3 task.
        int lastLevel = 0;
        for (const Task &t : tasks) {
            QVERIFY(t.level >= lastLevel);
            lastLevel = t.level;
        }
        QVERIFY(!index.find(QStringLiteral("no_such_task")));
    }

    void userFolderWithForeignAndBrokenFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        write(dir.filePath(QStringLiteral("level1/1_Square_matrix_multiplication_.py")), kForeign);
        write(dir.filePath(QStringLiteral("mine/l2_fused.py")),
              "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
              "        return torch.softmax(x, dim=-1)\n"
              "def get_inputs():\n    return [torch.randn(2, 3)]\ndef get_init_inputs():\n    return []\n");
        write(dir.filePath(QStringLiteral("helpers.py")), "def helper():\n    return 1\n");
        QFile::copy(QStringLiteral(KWB_TEST_DATA "/eval/not_a_task.py"), dir.filePath(QStringLiteral("not_a_task.py")));
        write(dir.filePath(QStringLiteral("__init__.py")), "");

        TaskIndex index;
        index.addDirectory(dir.path());
        QCOMPARE(index.tasks().size(), 2);
        const auto mm = index.find(QStringLiteral("1_Square_matrix_multiplication_"));
        QVERIFY(mm);
        QCOMPARE(mm->level, 1);
        QCOMPARE(mm->family, QStringLiteral("matmul"));
        const auto sm = index.find(QStringLiteral("l2_fused"));
        QVERIFY(sm);
        QCOMPARE(sm->level, 2);
        QCOMPARE(sm->family, QStringLiteral("softmax"));

        // Two problems, each naming what is missing; __init__.py is not a problem.
        const QStringList problems = index.problems();
        QCOMPARE(problems.size(), 2);
        const QString all = problems.join(QLatin1Char('\n'));
        QVERIFY2(all.contains(QStringLiteral("helpers.py: not a KernelBench task: no `class Model`")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("not_a_task.py: not a KernelBench task: no `def get_init_inputs()`")),
                 qPrintable(all));
        QVERIFY(!all.contains(QStringLiteral("__init__")));
    }

    void fromFileErrors()
    {
        QString error;
        QVERIFY(!TaskIndex::fromFile(QStringLiteral("/nonexistent/x.py"), &error));
        QVERIFY(error.contains(QStringLiteral("no such file")));
        QVERIFY(!TaskIndex::fromFile(QStringLiteral(KWB_TEST_DATA "/eval/not_a_task.py"), &error));
        QVERIFY(error.contains(QStringLiteral("get_init_inputs")));
        QVERIFY(!error.contains(QStringLiteral("get_inputs()`, ")));
        const auto t = TaskIndex::fromFile(QStringLiteral(KWB_TEST_DATA "/eval/tiny_relu.py"), &error);
        QVERIFY(t);
        QCOMPARE(t->name, QStringLiteral("tiny_relu"));
        QCOMPARE(t->level, 0);
        QCOMPARE(t->family, QStringLiteral("elementwise"));
    }

    void familyAndLevelRules()
    {
        QCOMPARE(TaskIndex::familyOf(QStringLiteral("self.gru = nn.GRU(a, b)\nself.fc = nn.Linear(1, 2)")),
                 QStringLiteral("gru"));
        QCOMPARE(TaskIndex::familyOf(QStringLiteral("self.lstm = nn.LSTM(a, b, batch_first=True)")),
                 QStringLiteral("lstm"));
        QCOMPARE(TaskIndex::familyOf(QStringLiteral("return A @ B")), QStringLiteral("matmul"));
        QCOMPARE(TaskIndex::familyOf(QStringLiteral("return torch.bmm(a, b)")), QStringLiteral("matmul"));
        QCOMPARE(TaskIndex::familyOf(QStringLiteral("return torch.softmax(x, dim=1)")), QStringLiteral("softmax"));
        QCOMPARE(TaskIndex::familyOf(QStringLiteral("return torch.sigmoid(x) * x")), QStringLiteral("elementwise"));
        QCOMPARE(TaskIndex::familyOf(QStringLiteral("return torch.cumsum(x, 0)")), QStringLiteral("other"));
        // A word in a comment decides nothing; a decorator is not a matmul.
        QCOMPARE(TaskIndex::familyOf(QStringLiteral("# unlike nn.GRU\nreturn torch.cumsum(x, 0)")), QStringLiteral("other"));
        QCOMPARE(TaskIndex::familyOf(QStringLiteral("x = f(y)\n@triton.jit\ndef k(): pass")), QStringLiteral("other"));

        QCOMPARE(TaskIndex::levelOf(QStringLiteral("/a/KernelBench/level3/39_GRU.py")), 3);
        QCOMPARE(TaskIndex::levelOf(QStringLiteral("/a/level_2/x.py")), 2);
        QCOMPARE(TaskIndex::levelOf(QStringLiteral("/a/b/level2_19_ConvGelu.py")), 2);
        QCOMPARE(TaskIndex::levelOf(QStringLiteral("/a/level1/sub/l3_thing.py")), 3);
        QCOMPARE(TaskIndex::levelOf(QStringLiteral("/a/b/39_GRU.py")), 0);
    }
};

QTEST_GUILESS_MAIN(TestTaskIndex)
#include "tst_taskindex.moc"

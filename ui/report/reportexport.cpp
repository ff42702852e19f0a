// SPDX-License-Identifier: MIT
#include "report/reportexport.h"

#include "chart/latencychart.h"
#include "report/report.h"

#include <QBuffer>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSaveFile>

namespace kwb {

ReportFormat reportFormatForPath(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == QLatin1String("md") || suffix == QLatin1String("markdown") ? ReportFormat::Markdown
                                                                                : ReportFormat::Html;
}

namespace {

bool writeFile(const QString &path, const QByteArray &bytes, QString *error)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
        if (error)
            *error = QObject::tr("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

QByteArray pngBytes(const QImage &image)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes;
}

} // namespace

bool exportReport(const Run &run, const QString &path, const QImage &chart, QString *error)
{
    if (reportFormatForPath(path) == ReportFormat::Markdown) {
        QString md = report::renderMarkdown(run);
        if (!chart.isNull()) {
            const QFileInfo info(path);
            const QString pngName = info.completeBaseName() + QStringLiteral("-latency.png");
            if (!writeFile(info.dir().filePath(pngName), pngBytes(chart), error))
                return false;
            md += QStringLiteral("\n![Latency chart](%1)\n").arg(pngName);
        }
        return writeFile(path, md.toUtf8(), error);
    }
    QString html = report::renderHtml(run);
    if (!chart.isNull()) {
        const QString figure = QStringLiteral("<figure class=\"kwb-chart-png\"><img alt=\"Latency chart\" "
                                              "style=\"max-width:100%\" src=\"data:image/png;base64,%1\">"
                                              "<figcaption>Latency chart (as shown in the workbench)</figcaption>"
                                              "</figure>\n")
                                   .arg(QString::fromLatin1(pngBytes(chart).toBase64()));
        const qsizetype end = html.lastIndexOf(QLatin1String("</body>"), -1, Qt::CaseInsensitive);
        if (end >= 0)
            html.insert(end, figure);
        else
            html += figure;
    }
    return writeFile(path, html.toUtf8(), error);
}

QString exportReportInteractive(QWidget *parent, const Run &run, const LatencyChart *chart)
{
    const QString suggested = (run.info.id.isEmpty() ? QStringLiteral("report") : run.info.id) + QStringLiteral(".html");
    const QString path = QFileDialog::getSaveFileName(parent, QObject::tr("Export report"), suggested,
                                                      QObject::tr("HTML report (*.html);;Markdown report (*.md)"));
    if (path.isEmpty())
        return {};
    QString error;
    if (!exportReport(run, path, chart ? chart->toImage(QSize(1200, 600)) : QImage(), &error)) {
        QMessageBox::warning(parent, QObject::tr("Export report"), error);
        return {};
    }
    return path;
}

} // namespace kwb

// SPDX-License-Identifier: MIT
#include "icons.h"

#include <QFile>
#include <QHash>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

namespace kwb::icons {

CandidateBadge badgeOf(const Candidate &c)
{
    switch (c.status) {
    case CandidateStatus::Pending:
        return CandidateBadge::Pending;
    case CandidateStatus::Evaluating:
        return CandidateBadge::Evaluating;
    case CandidateStatus::Rejected:
        return CandidateBadge::Rejected;
    case CandidateStatus::Evaluated:
        break;
    }
    if (!c.eval)
        return CandidateBadge::Failed;
    if (c.eval->correct())
        return c.hasIntegrityViolation() && c.overrideReason.isEmpty() ? CandidateBadge::CorrectFlagged
                                                                       : CandidateBadge::Correct;
    return c.eval->runnable() ? CandidateBadge::Wrong : CandidateBadge::Failed;
}

QString statusText(const Candidate &c)
{
    switch (c.status) {
    case CandidateStatus::Pending:
        return QStringLiteral("pending");
    case CandidateStatus::Evaluating:
        return QStringLiteral("evaluating…");
    case CandidateStatus::Rejected:
        return QStringLiteral("rejected");
    case CandidateStatus::Evaluated:
        break;
    }
    if (!c.eval)
        return QStringLiteral("no result");
    if (c.eval->correct()) {
        if (c.hasIntegrityViolation())
            return c.overrideReason.isEmpty() ? QStringLiteral("integrity violation")
                                              : QStringLiteral("correct (overridden)");
        return QStringLiteral("correct");
    }
    return toName(c.eval->status).replace(QLatin1Char('_'), QLatin1Char(' '));
}

namespace {

constexpr int kSize = 32;

QPixmap canvas() // transparent, high resolution; QIcon scales it down
{
    QPixmap pm(kSize, kSize);
    pm.fill(Qt::transparent);
    return pm;
}

QIcon disc(const QColor &fill, const QString &glyph, bool hollow = false)
{
    QPixmap pm = canvas();
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF r(3, 3, kSize - 6, kSize - 6);
    if (hollow) {
        p.setPen(QPen(fill, 3));
        p.setBrush(Qt::NoBrush);
    } else {
        p.setPen(Qt::NoPen);
        p.setBrush(fill);
    }
    p.drawEllipse(r);
    if (!glyph.isEmpty()) {
        QFont f = p.font();
        f.setBold(true);
        f.setPixelSize(18);
        p.setFont(f);
        p.setPen(hollow ? fill : QColor(Qt::white));
        p.drawText(r, Qt::AlignCenter, glyph);
    }
    return QIcon(pm);
}

QIcon triangle(const QColor &fill)
{
    QPixmap pm = canvas();
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    QPainterPath path;
    path.moveTo(kSize / 2.0, 3);
    path.lineTo(kSize - 3, kSize - 4);
    path.lineTo(3, kSize - 4);
    path.closeSubpath();
    p.fillPath(path, fill);
    QFont f = p.font();
    f.setBold(true);
    f.setPixelSize(18);
    p.setFont(f);
    p.setPen(Qt::white);
    p.drawText(QRectF(3, 8, kSize - 6, kSize - 12), Qt::AlignCenter, QStringLiteral("!"));
    return QIcon(pm);
}

const QColor kGreen(0x2e, 0xa0, 0x43);
const QColor kOrange(0xe0, 0x8a, 0x00);
const QColor kRed(0xd0, 0x33, 0x33);
const QColor kBlue(0x2f, 0x7d, 0xd6);
const QColor kGrey(0x8a, 0x8a, 0x8a);

} // namespace

QIcon badgeIcon(CandidateBadge b)
{
    // Painting is cheap but not free: a tree of 2,000 rows asks for icons on every repaint.
    // Never destroyed: pixmaps must not outlive QGuiApplication's teardown in a static destructor.
    static auto &cache = *new QHash<int, QIcon>;
    const int key = int(b);
    if (auto it = cache.constFind(key); it != cache.cend())
        return *it;
    QIcon icon;
    switch (b) {
    case CandidateBadge::Pending:
        icon = disc(kGrey, QString(), true);
        break;
    case CandidateBadge::Evaluating:
        icon = disc(kBlue, QStringLiteral("…"));
        break;
    case CandidateBadge::Correct:
        icon = disc(kGreen, QStringLiteral("✓"));
        break;
    case CandidateBadge::CorrectFlagged:
        icon = triangle(kRed);
        break;
    case CandidateBadge::Wrong:
        icon = disc(kOrange, QStringLiteral("≠"));
        break;
    case CandidateBadge::Failed:
        icon = disc(kRed, QStringLiteral("×"));
        break;
    case CandidateBadge::Rejected:
        icon = disc(kGrey, QStringLiteral("–"));
        break;
    }
    cache.insert(key, icon);
    return icon;
}

QIcon candidateIcon(const Candidate &c)
{
    return badgeIcon(badgeOf(c));
}

QIcon verdictIcon(const Verdict &v)
{
    // Never destroyed: pixmaps must not outlive QGuiApplication's teardown in a static destructor.
    static auto &cache = *new QHash<int, QIcon>;
    const int key = int(v.outcome) * 10 + int(v.severity);
    if (auto it = cache.constFind(key); it != cache.cend())
        return *it;
    QIcon icon;
    if (v.outcome == Outcome::No)
        icon = disc(kGreen, QStringLiteral("✓"));
    else if (v.outcome == Outcome::CannotTell)
        icon = disc(kGrey, QStringLiteral("?"));
    else if (v.severity >= Severity::Error)
        icon = triangle(v.severity == Severity::Critical ? kRed : kRed.lighter(115));
    else if (v.severity == Severity::Warning)
        icon = triangle(kOrange);
    else
        icon = disc(kBlue, QStringLiteral("i"));
    cache.insert(key, icon);
    return icon;
}

QIcon appIcon()
{
    // The executable carries the SVG (resources/kernel-workbench.qrc); libraries and tests paint one.
    const QString svg = QStringLiteral(":/icons/kernel-workbench.svg");
    if (QFile::exists(svg))
        return QIcon(svg);
    QPixmap pm(64, 64);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0x1f, 0x4e, 0x79));
    p.drawRoundedRect(QRectF(2, 2, 60, 60), 12, 12);
    p.setBrush(QColor(0x76, 0xb9, 0x00));
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x)
            p.drawRoundedRect(QRectF(12 + x * 14, 12 + y * 14, 11, 11), 2, 2);
    return QIcon(pm);
}

} // namespace kwb::icons

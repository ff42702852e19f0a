// SPDX-License-Identifier: MIT
#include "elidedlabel.h"

#include <QFontMetrics>

namespace kwb {

ElidedLabel::ElidedLabel(QWidget *parent)
    : QLabel(parent)
{
    setTextFormat(Qt::PlainText);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
}

void ElidedLabel::setFullText(const QString &text)
{
    m_full = text;
    setToolTip(text);
    updateShown();
}

bool ElidedLabel::isElided() const
{
    return text() != m_full;
}

QSize ElidedLabel::minimumSizeHint() const
{
    return {fontMetrics().horizontalAdvance(QStringLiteral("…")) * 4, QLabel::minimumSizeHint().height()};
}

void ElidedLabel::resizeEvent(QResizeEvent *event)
{
    QLabel::resizeEvent(event);
    updateShown();
}

void ElidedLabel::updateShown()
{
    const int room = contentsRect().width();
    setText(room > 0 ? fontMetrics().elidedText(m_full, Qt::ElideRight, room) : m_full);
}

} // namespace kwb

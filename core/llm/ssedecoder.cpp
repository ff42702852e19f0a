// SPDX-License-Identifier: MIT
#include "ssedecoder.h"

namespace kwb::llm {

QList<SseEvent> SseDecoder::feed(const QByteArray &bytes)
{
    QList<SseEvent> out;
    for (const char c : bytes) {
        if (m_pendingCr) {
            m_pendingCr = false;
            if (c == '\n')
                continue; // the second half of a CRLF that was split across chunks
        }
        if (c == '\r' || c == '\n') {
            takeLine(m_buffer, out);
            m_buffer.clear();
            m_pendingCr = (c == '\r');
        } else {
            m_buffer.append(c);
        }
    }
    return out;
}

QList<SseEvent> SseDecoder::finish()
{
    // A line cut off by the end of the stream is dropped (the answer was truncated); complete
    // lines of a last event that lacks its blank line still count, as some servers end that way.
    m_buffer.clear();
    QList<SseEvent> out;
    takeLine({}, out);
    return out;
}

void SseDecoder::takeLine(const QByteArray &line, QList<SseEvent> &out)
{
    if (line.isEmpty()) { // a blank line dispatches the event
        if (m_hasData)
            out.append(m_current);
        m_current = {};
        m_hasData = false;
        return;
    }
    m_sawLine = true;
    if (line.startsWith(':'))
        return; // comment / keep-alive
    const int colon = line.indexOf(':');
    const QByteArray field = colon < 0 ? line : line.left(colon);
    QByteArray value = colon < 0 ? QByteArray() : line.mid(colon + 1);
    if (value.startsWith(' '))
        value.remove(0, 1);
    if (field == "data") {
        if (m_hasData)
            m_current.data.append(QLatin1Char('\n'));
        m_current.data.append(QString::fromUtf8(value));
        m_hasData = true;
    } else if (field == "event") {
        m_current.event = QString::fromUtf8(value);
    }
}

} // namespace kwb::llm

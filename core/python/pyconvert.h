// SPDX-License-Identifier: MIT
#pragma once

// Conversions between Qt's JSON values and Python objects (pybind11 before any Qt header).
#include <pybind11/pybind11.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace kwb::python {

namespace py = pybind11;

py::object toPy(const QJsonValue &v);
py::dict toPy(const QJsonObject &o);
py::list toPy(const QJsonArray &a);
QJsonValue fromPy(const py::handle &o);
inline py::str toPy(const QString &s) { return py::str(s.toStdString()); }
inline QString qstr(const py::handle &o) { return QString::fromStdString(py::str(o).cast<std::string>()); }

} // namespace kwb::python

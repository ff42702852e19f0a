// SPDX-License-Identifier: MIT
#include "pyconvert.h"

namespace kwb::python {

py::object toPy(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Bool:
        return py::bool_(v.toBool());
    case QJsonValue::Double: {
        const double d = v.toDouble();
        if (d == double(qint64(d)) && std::abs(d) < 9e15)
            return py::int_(qint64(d));
        return py::float_(d);
    }
    case QJsonValue::String:
        return toPy(v.toString());
    case QJsonValue::Array:
        return toPy(v.toArray());
    case QJsonValue::Object:
        return toPy(v.toObject());
    default:
        return py::none();
    }
}

py::dict toPy(const QJsonObject &o)
{
    py::dict d;
    for (auto it = o.begin(); it != o.end(); ++it)
        d[py::str(it.key().toStdString())] = toPy(it.value());
    return d;
}

py::list toPy(const QJsonArray &a)
{
    py::list l;
    for (const auto &v : a)
        l.append(toPy(v));
    return l;
}

QJsonValue fromPy(const py::handle &o)
{
    if (o.is_none())
        return QJsonValue(QJsonValue::Null);
    if (py::isinstance<py::bool_>(o))
        return o.cast<bool>();
    if (py::isinstance<py::int_>(o))
        return double(o.cast<long long>());
    if (py::isinstance<py::float_>(o))
        return o.cast<double>();
    if (py::isinstance<py::str>(o))
        return qstr(o);
    if (py::isinstance<py::dict>(o)) {
        QJsonObject obj;
        for (auto item : o.cast<py::dict>())
            obj.insert(qstr(item.first), fromPy(item.second));
        return obj;
    }
    if (py::isinstance<py::list>(o) || py::isinstance<py::tuple>(o)) {
        QJsonArray arr;
        for (auto item : o)
            arr.append(fromPy(item));
        return arr;
    }
    return qstr(o);
}

} // namespace kwb::python

#pragma once

#include <QString>
#include <QStringView>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

namespace rw {

// Modes and statuses are enums in the engine and text at its edges (the spec,
// the control tables, JSON, the console). Each enum has one table of names,
// a specialisation of EnumNames next to the enum:
//
//   template <> struct EnumNames<WriteMode> {
//       static constexpr std::pair<WriteMode, std::string_view> names[] = {
//           {WriteMode::Merge, "merge"}, ...};
//   };
//
// and enumName/enumFromName are the one to/from string pair for all of them
// (as qBittorrent's Utils::String::fromEnum).
template <typename E> struct EnumNames;

template <typename E>
concept NamedEnum = std::is_enum_v<E> && requires {
    EnumNames<E>::names;
};

template <NamedEnum E> QString enumName(E value) {
    for (const auto &[v, name] : EnumNames<E>::names)
        if (v == value)
            return QString::fromLatin1(name.data(), qsizetype(name.size()));
    return {};
}

// nullopt for text that names no value (the caller says what it expected).
template <NamedEnum E> std::optional<E> enumFromName(QStringView text) {
    for (const auto &[v, name] : EnumNames<E>::names)
        if (text == QLatin1StringView(name.data(), qsizetype(name.size())))
            return v;
    return std::nullopt;
}

// The names, in declaration order, for messages such as "one of: a, b, c".
template <NamedEnum E> QString enumNames(const QString &separator = QStringLiteral(", ")) {
    QString out;
    for (const auto &[v, name] : EnumNames<E>::names) {
        if (!out.isEmpty())
            out += separator;
        out += QString::fromLatin1(name.data(), qsizetype(name.size()));
    }
    return out;
}

} // namespace rw

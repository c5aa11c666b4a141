#include "core/dbt/jinja.h"

#include <QStringBuilder>
#include <QStringList>
#include <algorithm>
#include <vector>

namespace rw::dbt {

namespace {

// One argument of a call: a literal, by position or by keyword.
struct Argument {
    QString keyword; // empty for a positional one
    QString text;    // a string's content, or a number's or a name's spelling
    bool isString = false;
};

// A reader of one tag's content: names, literals and calls.
class Reader {
public:
    explicit Reader(const QString &text)
        : m_s(text) {}

    void skipSpace() {
        while (m_i < m_s.size() && m_s[m_i].isSpace())
            ++m_i;
    }
    bool atEnd() {
        skipSpace();
        return m_i >= m_s.size();
    }
    bool take(QChar c) {
        skipSpace();
        if (m_i < m_s.size() && m_s[m_i] == c) {
            ++m_i;
            return true;
        }
        return false;
    }
    // A name (letters, digits, _ and dots, as dbt_utils.star); empty if none.
    QString name() {
        skipSpace();
        const qsizetype start = m_i;
        while (m_i < m_s.size() &&
               (m_s[m_i].isLetterOrNumber() || m_s[m_i] == u'_' || m_s[m_i] == u'.'))
            ++m_i;
        return m_s.mid(start, m_i - start);
    }
    // A string, number or bare name; nullopt if none.
    std::optional<Argument> literal() {
        skipSpace();
        if (m_i >= m_s.size())
            return std::nullopt;
        const QChar c = m_s[m_i];
        if (c == u'\'' || c == u'"') {
            Argument a;
            a.isString = true;
            for (++m_i; m_i < m_s.size() && m_s[m_i] != c; ++m_i) {
                if (m_s[m_i] == u'\\' && m_i + 1 < m_s.size())
                    ++m_i;
                a.text += m_s[m_i];
            }
            if (m_i >= m_s.size())
                return std::nullopt; // unterminated
            ++m_i;
            return a;
        }
        const qsizetype start = m_i;
        while (m_i < m_s.size() && (m_s[m_i].isLetterOrNumber() || m_s[m_i] == u'_' ||
                                    m_s[m_i] == u'.' || m_s[m_i] == u'-'))
            ++m_i;
        if (m_i == start)
            return std::nullopt;
        return Argument{{}, m_s.mid(start, m_i - start), false};
    }
    // The arguments of a call, after its "(" up to its ")"; nullopt when
    // one is not a literal.
    std::optional<std::vector<Argument>> arguments() {
        std::vector<Argument> out;
        if (take(u')'))
            return out;
        while (true) {
            const qsizetype mark = m_i;
            QString keyword = name();
            if (keyword.isEmpty() || !take(u'=')) {
                keyword.clear();
                m_i = mark;
            }
            auto value = literal();
            if (!value)
                return std::nullopt;
            value->keyword = keyword;
            out.push_back(*value);
            if (take(u')'))
                return out;
            if (!take(u','))
                return std::nullopt;
        }
    }
    // Past the ")" that closes a call whose "(" was read, whatever it holds
    // (a config's lists and dictionaries); false if it never closes.
    bool skipCall() {
        int depth = 1;
        QChar quote;
        for (; m_i < m_s.size(); ++m_i) {
            const QChar c = m_s[m_i];
            if (!quote.isNull()) {
                if (c == u'\\')
                    ++m_i;
                else if (c == quote)
                    quote = QChar();
            } else if (c == u'\'' || c == u'"') {
                quote = c;
            } else if (c == u'(' || c == u'[' || c == u'{') {
                ++depth;
            } else if (c == u')' || c == u']' || c == u'}') {
                if (--depth == 0) {
                    ++m_i;
                    return true;
                }
            }
        }
        return false;
    }

private:
    QString m_s;
    qsizetype m_i = 0;
};

QString shown(const QString &tag) {
    const QString t = tag.simplified();
    return t.size() > 60 ? t.left(57) % QStringLiteral("...") : t;
}

QString compileHint() {
    return QStringLiteral(", which Rewind does not render: give the project folder to --dbt "
                          "(dbt then compiles it), or run `dbt compile --full-refresh` so that "
                          "the manifest holds compiled_code");
}

// {{ expression }}: the SQL it renders to, or nullopt with `why`.
std::optional<QString> expression(const QString &content, const JinjaNames &names, QString &why) {
    Reader r(content);
    const QString fn = r.name();
    const auto unsupported = [&]() -> std::optional<QString> {
        why = QStringLiteral("its raw_code uses {{ %1 }}").arg(shown(content)) % compileHint();
        return std::nullopt;
    };
    if (fn == QLatin1String("this") && r.atEnd())
        return names.self;
    if (fn.isEmpty() || !r.take(u'('))
        return unsupported();
    if (fn == QLatin1String("config")) {
        if (!r.skipCall() || !r.atEnd())
            return unsupported();
        return QString();
    }
    auto args = r.arguments();
    if (!args || !r.atEnd())
        return unsupported();
    QStringList positional;
    QString version;
    for (const Argument &a : *args) {
        if (a.keyword.isEmpty())
            positional << a.text;
        else if ((a.keyword == QLatin1String("v") || a.keyword == QLatin1String("version")) &&
                 fn == QLatin1String("ref"))
            version = a.text;
        else
            return unsupported();
    }
    if (fn == QLatin1String("ref") && (positional.size() == 1 || positional.size() == 2)) {
        const QString package = positional.size() == 2 ? positional[0] : QString();
        const QString name = positional.back();
        if (auto table = names.ref(package, name, version))
            return *table;
        why = QStringLiteral("its raw_code refers to %1, which is no model of this manifest with "
                             "a table (an ephemeral model is inlined only by dbt: give the "
                             "project folder to --dbt)")
                  .arg(shown(content));
        return std::nullopt;
    }
    if (fn == QLatin1String("source") && positional.size() == 2) {
        if (auto table = names.source(positional[0], positional[1]))
            return *table;
        why = QStringLiteral("its raw_code refers to %1, which is no source of this manifest with "
                             "a relation")
                  .arg(shown(content));
        return std::nullopt;
    }
    if (fn == QLatin1String("var") && positional.size() == 2)
        return positional[1]; // the default: the manifest does not hold the project's vars
    if (fn == QLatin1String("var") && positional.size() == 1) {
        why = QStringLiteral("its raw_code uses {{ %1 }} with no default (the manifest does not "
                             "hold the project's vars)")
                  .arg(shown(content)) %
              compileHint();
        return std::nullopt;
    }
    return unsupported();
}

} // namespace

std::optional<QString> renderJinja(const QString &raw, const JinjaNames &names, QString &why) {
    QString out;
    // Open {% if %} blocks: whether each branch now read is rendered
    // (is_incremental() is false), and those opened inside a branch that is
    // not (whatever their condition: nothing in them is rendered).
    struct Block {
        bool rendered; // this branch
        bool opaque;   // opened inside a branch not rendered
    };
    std::vector<Block> blocks;
    const auto rendering = [&] {
        return std::all_of(blocks.begin(), blocks.end(), [](const Block &b) { return b.rendered; });
    };
    bool trimNext = false;
    bool textRendered = false; // the text just before a tag was rendered
    qsizetype i = 0;
    while (i < raw.size()) {
        const qsizetype open = raw.indexOf(u'{', i);
        const bool tag = open >= 0 && open + 1 < raw.size() &&
                         (raw[open + 1] == u'{' || raw[open + 1] == u'%' || raw[open + 1] == u'#');
        const qsizetype textEnd = tag ? open : (open < 0 ? raw.size() : open + 1);
        QString text = raw.mid(i, textEnd - i);
        if (trimNext) {
            qsizetype k = 0;
            while (k < text.size() && text[k].isSpace())
                ++k;
            text = text.mid(k);
            trimNext = false;
        }
        textRendered = rendering();
        if (textRendered)
            out += text;
        i = textEnd;
        if (!tag)
            continue;
        const QChar kind = raw[open + 1];
        const QString close = kind == u'{'   ? QStringLiteral("}}")
                              : kind == u'%' ? QStringLiteral("%}")
                                             : QStringLiteral("#}");
        // The tag ends at its closing pair outside quotes (a config's
        // post_hook may hold "{{ this }}"); a comment's at the first.
        qsizetype end = -1;
        QChar quote;
        for (qsizetype k = open + 2; k + 1 < raw.size(); ++k) {
            const QChar c = raw[k];
            if (kind != u'#' && !quote.isNull()) {
                if (c == u'\\')
                    ++k;
                else if (c == quote)
                    quote = QChar();
            } else if (kind != u'#' && (c == u'\'' || c == u'"')) {
                quote = c;
            } else if (c == close[0] && raw[k + 1] == close[1]) {
                end = k;
                break;
            }
        }
        if (end < 0) {
            why =
                QStringLiteral("its raw_code has a %1 that is never closed").arg(raw.mid(open, 2));
            return std::nullopt;
        }
        QString content = raw.mid(open + 2, end - open - 2);
        i = end + 2;
        if (content.startsWith(u'-')) { // {%- trims the whitespace before
            content = content.mid(1);
            while (textRendered && !out.isEmpty() && out.back().isSpace())
                out.chop(1);
        }
        if (content.endsWith(u'-')) { // -%} trims the whitespace after
            content.chop(1);
            trimNext = true;
        }
        if (kind == u'#')
            continue;
        if (kind == u'{') {
            if (!rendering())
                continue;
            auto sql = expression(content, names, why);
            if (!sql)
                return std::nullopt;
            out += *sql;
            continue;
        }
        // A statement.
        Reader r(content);
        const QString word = r.name();
        if (word == QLatin1String("if")) {
            if (!rendering()) {
                blocks.push_back({false, true});
                continue;
            }
            const bool negated = r.name() == QLatin1String("not");
            Reader again(content);
            again.name(); // if
            if (negated)
                again.name();
            if (again.name() != QLatin1String("is_incremental") || !again.take(u'(') ||
                !again.take(u')') || !again.atEnd()) {
                why = QStringLiteral("its raw_code uses {% %1 %}").arg(shown(content)) %
                      compileHint();
                return std::nullopt;
            }
            blocks.push_back({negated, false});
        } else if (word == QLatin1String("else") && r.atEnd()) {
            if (blocks.empty()) {
                why = QStringLiteral("its raw_code has an {% else %} outside any {% if %}");
                return std::nullopt;
            }
            if (!blocks.back().opaque)
                blocks.back().rendered = !blocks.back().rendered;
        } else if (word == QLatin1String("endif") && r.atEnd()) {
            if (blocks.empty()) {
                why = QStringLiteral("its raw_code has an {% endif %} outside any {% if %}");
                return std::nullopt;
            }
            blocks.pop_back();
        } else if (word == QLatin1String("elif") && !blocks.empty() && !blocks.back().opaque) {
            why = QStringLiteral("its raw_code uses {% %1 %}").arg(shown(content)) % compileHint();
            return std::nullopt;
        } else if (!rendering()) {
            continue; // not rendered: whatever it is
        } else if (word == QLatin1String("snapshot") || word == QLatin1String("endsnapshot")) {
            continue; // a snapshot's block: its select is the code
        } else {
            why = QStringLiteral("its raw_code uses {% %1 %}").arg(shown(content)) % compileHint();
            return std::nullopt;
        }
    }
    if (!blocks.empty()) {
        why = QStringLiteral("its raw_code has an {% if %} that is never closed");
        return std::nullopt;
    }
    return out.trimmed();
}

} // namespace rw::dbt

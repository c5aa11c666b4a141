#include "ui/common/jsonhighlighter.h"

#include "ui/common/style.h"
namespace rw {

JsonHighlighter::JsonHighlighter(QTextDocument *parent)
    : QSyntaxHighlighter(parent) {
    m_key.setForeground(style::qcolor(style::Colour::Special));
    m_string.setForeground(style::qcolor(style::Colour::JsonString));
    m_number.setForeground(style::qcolor(style::Colour::JsonNumber));
    m_literal.setForeground(style::qcolor(style::Colour::Warning));
    m_literal.setFontWeight(QFont::Bold);
    m_punctuation.setForeground(style::qcolor(style::Colour::Muted));
}

QTextCharFormat JsonHighlighter::format(Token token) const {
    switch (token) {
    case Token::Key:
        return m_key;
    case Token::String:
        return m_string;
    case Token::Number:
        return m_number;
    case Token::Literal:
        return m_literal;
    case Token::Punctuation:
        return m_punctuation;
    }
    return {};
}

void JsonHighlighter::highlightBlock(const QString &text) {
    const qsizetype n = text.size();
    qsizetype i = 0;
    while (i < n) {
        const QChar c = text.at(i);
        if (c == u'"') {
            qsizetype j = i + 1;
            while (j < n && text.at(j) != u'"')
                j += text.at(j) == u'\\' ? 2 : 1;
            j = std::min(j + 1, n);
            // A string followed by a colon is a key.
            qsizetype k = j;
            while (k < n && text.at(k).isSpace())
                ++k;
            setFormat(int(i), int(j - i), k < n && text.at(k) == u':' ? m_key : m_string);
            i = j;
        } else if (c == u'-' || c.isDigit()) {
            qsizetype j = i + 1;
            while (j < n && (text.at(j).isDigit() || text.at(j) == u'.' || text.at(j) == u'e' ||
                             text.at(j) == u'E' || text.at(j) == u'+' || text.at(j) == u'-'))
                ++j;
            setFormat(int(i), int(j - i), m_number);
            i = j;
        } else if (c.isLetter()) {
            qsizetype j = i + 1;
            while (j < n && text.at(j).isLetter())
                ++j;
            const QStringView word = QStringView(text).mid(i, j - i);
            if (word == u"true" || word == u"false" || word == u"null")
                setFormat(int(i), int(j - i), m_literal);
            i = j;
        } else {
            if (c == u'{' || c == u'}' || c == u'[' || c == u']' || c == u':' || c == u',')
                setFormat(int(i), 1, m_punctuation);
            ++i;
        }
    }
}

} // namespace rw

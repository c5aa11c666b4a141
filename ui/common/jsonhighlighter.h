#pragma once

#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace rw {

// Colours JSON text: keys, strings, numbers, true/false/null and punctuation.
// Each line is coloured on its own (a JSON string cannot span lines), so it
// stays cheap while the operator types. GUI thread only.
class JsonHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    enum class Token { Key, String, Number, Literal, Punctuation };

    explicit JsonHighlighter(QTextDocument *parent);

    QTextCharFormat format(Token token) const;

protected:
    void highlightBlock(const QString &text) override;

private:
    QTextCharFormat m_key;
    QTextCharFormat m_string;
    QTextCharFormat m_number;
    QTextCharFormat m_literal;
    QTextCharFormat m_punctuation;
};

} // namespace rw

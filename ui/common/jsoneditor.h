#pragma once

#include <QPlainTextEdit>
#include <optional>

class QTimer;

namespace rw {

class JsonHighlighter;

// Where a JSON text stops parsing, in the operator's terms.
struct JsonProblem {
    qint64 byte = 0; // 1-based position of the offending byte (nlohmann's parse_error::byte)
    int line = 1;    // 1-based
    int column = 1;  // 1-based, in characters
    QString message;
};

// Parses `utf8` as JSON; nullopt when it is valid.
std::optional<JsonProblem> checkJson(const QByteArray &utf8);

// A plain-text editor for JSON payloads: highlighted, validated as the
// operator types (debounced), with the first parse error's line underlined.
// GUI thread only.
class JsonEditor : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit JsonEditor(QWidget *parent = nullptr);

    // Replaces the text without counting as an edit.
    void setJson(const QString &text);
    // The text as the bytes a fix would store.
    QByteArray bytes() const { return toPlainText().toUtf8(); }
    // The latest validation; runs it now if an edit is pending.
    const std::optional<JsonProblem> &problem();
    bool isValid() { return !problem().has_value(); }
    // Re-indents valid JSON (two spaces); does nothing to invalid text.
    bool reformat();
    JsonHighlighter *highlighter() const { return m_highlighter; }

Q_SIGNALS:
    // After each validation (the text parses or not).
    void validated();

private:
    void validateNow();

    JsonHighlighter *m_highlighter;
    QTimer *m_debounce;
    std::optional<JsonProblem> m_problem;
};

} // namespace rw

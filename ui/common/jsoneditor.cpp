#include "ui/common/jsoneditor.h"

#include "ui/common/jsonhighlighter.h"
#include "ui/common/style.h"

#include <QFontDatabase>
#include <QTextBlock>
#include <QTimer>
#include <nlohmann/json.hpp>

namespace rw {

std::optional<JsonProblem> checkJson(const QByteArray &utf8) {
    try {
        const auto parsed = nlohmann::json::parse(utf8.constBegin(), utf8.constEnd());
        (void)parsed;
        return std::nullopt;
    } catch (const nlohmann::json::parse_error &e) {
        JsonProblem p;
        p.byte = qint64(e.byte);
        // The offending byte's line and column: count the lines before it and
        // the characters (not bytes) between the line start and it.
        const qsizetype at = std::clamp<qsizetype>(qsizetype(e.byte) - 1, 0, utf8.size());
        const qsizetype lineStart = at == 0 ? 0 : utf8.lastIndexOf('\n', at - 1) + 1;
        p.line = int(utf8.left(at).count('\n')) + 1;
        p.column = int(QString::fromUtf8(utf8.mid(lineStart, at - lineStart)).size()) + 1;
        QString what = QString::fromUtf8(e.what());
        // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error while
        // parsing value - ..."
        if (const qsizetype colon =
                what.indexOf(QLatin1String(": "), what.indexOf(QLatin1String("parse error")));
            colon > 0)
            what = what.mid(colon + 2);
        p.message = what;
        return p;
    } catch (const nlohmann::json::exception &e) {
        // Parses, but a value is out of range (like 1e999).
        JsonProblem p;
        p.message = QString::fromUtf8(e.what());
        return p;
    }
}

JsonEditor::JsonEditor(QWidget *parent)
    : QPlainTextEdit(parent)
    , m_highlighter(new JsonHighlighter(document()))
    , m_debounce(new QTimer(this)) {
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setLineWrapMode(QPlainTextEdit::WidgetWidth);
    setTabChangesFocus(false);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(150);
    connect(m_debounce, &QTimer::timeout, this, &JsonEditor::validateNow);
    connect(this, &QPlainTextEdit::textChanged, m_debounce, qOverload<>(&QTimer::start));
}

void JsonEditor::setJson(const QString &text) {
    setPlainText(text);
    document()->setModified(false);
    validateNow();
}

const std::optional<JsonProblem> &JsonEditor::problem() {
    if (m_debounce->isActive())
        validateNow();
    return m_problem;
}

void JsonEditor::validateNow() {
    m_debounce->stop();
    m_problem = checkJson(bytes());
    QList<QTextEdit::ExtraSelection> marks;
    if (m_problem &&
        !document()->isEmpty()) { // an empty editor (no record) has nothing to point at
        const QTextBlock block = document()->findBlockByNumber(m_problem->line - 1);
        if (block.isValid()) {
            QTextEdit::ExtraSelection line;
            line.format.setBackground(style::qcolor(style::Colour::ErrorTint));
            line.format.setProperty(QTextFormat::FullWidthSelection, true);
            line.cursor = QTextCursor(block);
            marks << line;
            QTextEdit::ExtraSelection at;
            at.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
            at.format.setUnderlineColor(style::qcolor(style::Colour::Error));
            at.format.setBackground(style::qcolor(style::Colour::ErrorMark));
            at.cursor = QTextCursor(block);
            at.cursor.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor,
                                   std::min(m_problem->column - 1, block.length() - 1));
            if (!at.cursor.movePosition(QTextCursor::Right, QTextCursor::KeepAnchor) ||
                at.cursor.atBlockEnd())
                at.cursor.movePosition(QTextCursor::Left, QTextCursor::KeepAnchor);
            marks << at;
        }
    }
    setExtraSelections(marks);
    Q_EMIT validated();
}

bool JsonEditor::reformat() {
    if (!isValid())
        return false;
    const QByteArray text = bytes();
    QString pretty;
    try {
        pretty = QString::fromStdString(
            nlohmann::ordered_json::parse(text.constBegin(), text.constEnd()).dump(2));
    } catch (const nlohmann::json::exception &) {
        return false;
    }
    if (pretty == toPlainText())
        return true;
    // As one undoable edit that counts as a change.
    QTextCursor c(document());
    c.select(QTextCursor::Document);
    c.insertText(pretty);
    return true;
}

} // namespace rw

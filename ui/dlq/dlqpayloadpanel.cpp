#include "ui/dlq/dlqpayloadpanel.h"

#include "ui/common/format.h"
#include "ui/common/jsoneditor.h"
#include "ui/common/refusal.h"
#include "ui/common/style.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSplitter>
#include <QStringBuilder>
#include <QStringDecoder>
#include <QVBoxLayout>

namespace rw {

namespace {

constexpr qint64 kTruncatedBytes = 64 * 1024;

// The payload as text, and a note when it is not shown exactly as stored.
std::pair<QString, QString> asText(const std::optional<QByteArray> &payload) {
    if (!payload)
        return {QString(), QObject::tr("(no payload)")};
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QByteArray shown = payload->size() > DlqPayloadPanel::kMaxEditableBytes
                                 ? payload->left(kTruncatedBytes)
                                 : *payload;
    QString text = decoder.decode(shown);
    QStringList notes;
    if (payload->size() > DlqPayloadPanel::kMaxEditableBytes)
        notes << QObject::tr("%1 bytes: the first %2 shown")
                     .arg(fmt::number(payload->size()), fmt::number(kTruncatedBytes));
    else if (decoder.hasError())
        notes << QObject::tr("not valid UTF-8: shown with replacement characters");
    return {text, notes.join(QStringLiteral("; "))};
}

} // namespace

DlqPayloadPanel::DlqPayloadPanel(QWidget *parent)
    : QWidget(parent)
    , m_header(new QLabel(this))
    , m_originalNote(new QLabel(this))
    , m_original(new JsonEditor(this))
    , m_current(new JsonEditor(this))
    , m_validation(new QLabel(this))
    , m_format(new QPushButton(tr("Format"), this))
    , m_revert(new QPushButton(tr("Revert"), this))
    , m_save(new QPushButton(tr("Save fix"), this))
    , m_path(new QLineEdit(this))
    , m_value(new QLineEdit(this))
    , m_setPath(new QPushButton(tr("Set on selection\u2026"), this)) {
    setObjectName(QStringLiteral("dlqPayloadPanel"));
    m_header->setObjectName(QStringLiteral("dlqRecordHeader"));
    m_header->setStyleSheet(style::textColour(style::Colour::Strong));
    m_header->setTextFormat(Qt::RichText);
    m_original->setObjectName(QStringLiteral("dlqOriginalPayload"));
    m_original->setReadOnly(true);
    m_original->setStyleSheet(QStringLiteral("QPlainTextEdit { background: %1; }")
                                  .arg(style::colour(style::Colour::Panel)));
    m_originalNote->setStyleSheet(style::textColour(style::Colour::Muted));
    m_current->setObjectName(QStringLiteral("dlqCurrentPayload"));
    m_validation->setObjectName(QStringLiteral("dlqValidation"));
    m_validation->setWordWrap(true);
    m_save->setObjectName(QStringLiteral("dlqSaveFix"));
    m_save->setToolTip(tr("Store the edited payload: the record becomes fixed, with the payload "
                          "before and after in its history"));
    m_format->setToolTip(tr("Re-indent the JSON (two spaces)"));
    m_revert->setToolTip(tr("Back to the stored payload"));
    m_path->setObjectName(QStringLiteral("dlqSetPath"));
    m_path->setPlaceholderText(QStringLiteral("$.amount"));
    m_path->setToolTip(tr("A JSON path: $ then .key, .\"key\", [N] or [#-N] steps"));
    m_value->setObjectName(QStringLiteral("dlqSetValue"));
    m_value->setPlaceholderText(tr("value (JSON, or text)"));
    m_value->setToolTip(
        tr("Read as JSON when it parses (0, \"EUR\", null, {\"a\": 1}), otherwise as a string"));
    m_setPath->setObjectName(QStringLiteral("dlqSetPathButton"));

    auto *originalBox = new QWidget(this);
    auto *ol = new QVBoxLayout(originalBox);
    ol->setContentsMargins(0, 0, 0, 0);
    ol->setSpacing(4);
    auto *oh = new QHBoxLayout;
    oh->addWidget(style::sectionLabel(tr("Original, as captured"), originalBox));
    oh->addStretch(1);
    oh->addWidget(m_originalNote);
    ol->addLayout(oh);
    ol->addWidget(m_original, 1);

    auto *currentBox = new QWidget(this);
    auto *cl = new QVBoxLayout(currentBox);
    cl->setContentsMargins(0, 0, 0, 0);
    cl->setSpacing(4);
    auto *ch = new QHBoxLayout;
    ch->addWidget(style::sectionLabel(tr("Current payload"), currentBox));
    ch->addStretch(1);
    ch->addWidget(m_format);
    ch->addWidget(m_revert);
    ch->addWidget(m_save);
    cl->addLayout(ch);
    cl->addWidget(m_current, 1);
    cl->addWidget(m_validation);

    auto *split = style::splitter(Qt::Horizontal, {{originalBox, 0}, {currentBox, 0}}, this);

    auto *tool = new QHBoxLayout;
    tool->addWidget(new QLabel(tr("Set JSON path"), this));
    tool->addWidget(m_path, 2);
    tool->addWidget(new QLabel(tr("to"), this));
    tool->addWidget(m_value, 2);
    tool->addWidget(m_setPath);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->setSpacing(6);
    layout->addWidget(m_header);
    layout->addWidget(split, 1);
    layout->addLayout(tool);

    connect(m_current, &JsonEditor::validated, this, &DlqPayloadPanel::updateState);
    connect(m_current, &QPlainTextEdit::modificationChanged, this, &DlqPayloadPanel::updateState);
    connect(m_format, &QPushButton::clicked, m_current, &JsonEditor::reformat);
    connect(m_revert, &QPushButton::clicked, this, [this] { m_current->setJson(m_loadedText); });
    connect(m_save, &QPushButton::clicked, this, [this] {
        if (canSave())
            Q_EMIT saveRequested(m_id, m_current->bytes());
    });
    connect(m_path, &QLineEdit::textChanged, this, &DlqPayloadPanel::updateState);
    connect(m_setPath, &QPushButton::clicked, this,
            [this] { Q_EMIT setPathRequested(m_path->text().trimmed(), m_value->text()); });
    clearRecord();
}

void DlqPayloadPanel::showRecord(const DlqDetail &detail) {
    const DlqRecord &r = detail.record;
    m_id = r.id;
    m_status = r.status;
    const auto [original, originalNote] = asText(detail.originalPayload);
    const auto [current, currentNote] = asText(detail.payload);
    m_editable = (r.status == DlqStatus::New || r.status == DlqStatus::Failed ||
                  r.status == DlqStatus::Fixed) &&
                 detail.payload && detail.payload->size() <= kMaxEditableBytes;
    QStringList where{QStringLiteral("<b>#%1</b>").arg(r.id), r.source().toHtmlEscaped()};
    if (r.partition)
        where
            << (r.offset
                    ? tr("partition %1, offset %2").arg(r.partition->toHtmlEscaped()).arg(*r.offset)
                    : tr("partition %1").arg(r.partition->toHtmlEscaped()));
    if (r.eventId)
        where << tr("event %1").arg(r.eventId->toHtmlEscaped());
    if (r.key)
        where << tr("key %1").arg(r.key->toHtmlEscaped());
    where << tr("status <b>%1</b>").arg(enumName(r.status));
    if (!m_editable)
        where << style::coloured(
            detail.payload && detail.payload->size() > kMaxEditableBytes
                ? tr("too large to edit here: use rewindctl dlq fix --payload-file")
                : tr("%1: read-only").arg(enumName(r.status)),
            style::Colour::Muted);
    m_header->setText(where.join(QStringLiteral("  \u00b7  ")));
    m_original->setJson(original);
    m_originalNote->setText(originalNote);
    m_loadedText = current;
    m_current->setJson(current);
    m_current->setReadOnly(!m_editable);
    m_current->setStyleSheet(m_editable ? QString()
                                        : QStringLiteral("QPlainTextEdit { background: %1; }")
                                              .arg(style::colour(style::Colour::Panel)));
    if (!currentNote.isEmpty())
        m_current->setToolTip(currentNote);
    updateState();
}

void DlqPayloadPanel::clearRecord() {
    m_id = 0;
    m_status.reset();
    m_editable = false;
    m_loadedText.clear();
    m_header->setText(style::coloured(tr("Select a record to see its payloads and history."),
                                      style::Colour::Muted));
    m_original->setJson(QString());
    m_originalNote->clear();
    m_current->setJson(QString());
    m_current->setReadOnly(true);
    updateState();
}

bool DlqPayloadPanel::isModified() const {
    return m_id != 0 && m_current->toPlainText() != m_loadedText;
}

bool DlqPayloadPanel::canSave() const {
    return !m_busy && m_editable && isModified() && m_current->isValid();
}

void DlqPayloadPanel::setBusy(bool busy) {
    m_busy = busy;
    updateState();
}

void DlqPayloadPanel::setRefusal(const QString &refusal) {
    if (refusal == m_refusal)
        return;
    m_refusal = refusal;
    updateState();
}

void DlqPayloadPanel::setSelectionSize(qint64 records) {
    m_selection = records;
    updateState();
}

void DlqPayloadPanel::updateState() {
    if (m_id == 0) {
        m_validation->clear();
    } else if (const auto &problem = m_current->problem()) {
        m_validation->setStyleSheet(style::textColour(style::Colour::Error));
        m_validation->setText(tr("\u2717 Line %1, column %2: %3")
                                  .arg(problem->line)
                                  .arg(problem->column)
                                  .arg(problem->message));
    } else {
        m_validation->setStyleSheet(style::textColour(style::Colour::Ok));
        m_validation->setText(isModified() ? tr("\u2713 Valid JSON \u00b7 edited, not saved")
                                           : tr("\u2713 Valid JSON"));
    }
    m_save->setEnabled(canSave());
    m_format->setEnabled(m_editable);
    m_revert->setEnabled(m_editable && isModified());
    m_setPath->setEnabled(!m_busy && m_selection > 0 && !m_path->text().trimmed().isEmpty());
    m_setPath->setText(m_selection > 1 ? tr("Set on %1 records\u2026").arg(fmt::number(m_selection))
                                       : tr("Set on selection\u2026"));
    showRefusal(m_save, m_refusal);
    showRefusal(m_setPath, m_refusal);
}

} // namespace rw

#include "ui/common/errorbanner.h"

#include "ui/common/style.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace rw {

ErrorBanner::ErrorBanner(QWidget *parent)
    : QFrame(parent)
    , m_icon(new QLabel(this))
    , m_text(new QLabel(this))
    , m_close(new QToolButton(this)) {
    setObjectName(QStringLiteral("errorBanner"));
    setFrameShape(QFrame::NoFrame);
    setAutoFillBackground(true);

    m_text->setObjectName(QStringLiteral("errorBannerText"));
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);

    m_close->setText(QStringLiteral("\u2715"));
    m_close->setToolTip(tr("Dismiss"));
    m_close->setAutoRaise(true);
    connect(m_close, &QToolButton::clicked, this, &ErrorBanner::dismiss);

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(12, 8, 8, 8);
    layout->setSpacing(10);
    layout->addWidget(m_icon, 0, Qt::AlignTop);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_close, 0, Qt::AlignTop);
    hide();
}

void ErrorBanner::showMessage(Level level, const QString &message) {
    m_level = level;
    m_text->setText(message);
    QStyle::StandardPixmap icon = QStyle::SP_MessageBoxInformation;
    style::Colour background = style::Colour::InfoTint;
    style::Colour border = style::Colour::Accent;
    if (level == Level::Warning) {
        icon = QStyle::SP_MessageBoxWarning;
        background = style::Colour::WarningTint;
        border = style::Colour::WarningBorder;
    } else if (level == Level::Error) {
        icon = QStyle::SP_MessageBoxCritical;
        background = style::Colour::ErrorTint;
        border = style::Colour::ErrorBorder;
    }
    m_icon->setPixmap(style()->standardIcon(icon).pixmap(20, 20));
    setStyleSheet(QStringLiteral("#errorBanner { background: %1; border-left: 4px solid %2; "
                                 "border-bottom: 1px solid %2; }"
                                 "#errorBannerText { color: %3; }")
                      .arg(style::colour(background), style::colour(border),
                           style::colour(style::Colour::Text)));
    show();
}

void ErrorBanner::dismiss() {
    if (isHidden())
        return;
    hide();
    m_text->clear();
    Q_EMIT dismissed();
}

QString ErrorBanner::message() const {
    return isHidden() ? QString() : m_text->text();
}

} // namespace rw

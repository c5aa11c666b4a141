#include "ui/common/stattile.h"

#include "ui/common/style.h"

#include <QLabel>
#include <QVBoxLayout>

namespace rw {

StatTile::StatTile(const QString &caption, QWidget *parent)
    : QFrame(parent)
    , m_value(new QLabel(QStringLiteral("\u2014"), this))
    , m_caption(new QLabel(caption, this)) {
    setObjectName(QStringLiteral("statTile"));
    setStyleSheet(style::panelStyleSheet(QStringLiteral("statTile"), style::Colour::Panel,
                                         style::Colour::Border, 6));
    QFont valueFont = m_value->font();
    valueFont.setPointSizeF(valueFont.pointSizeF() * 1.45);
    valueFont.setBold(true);
    m_value->setFont(valueFont);
    m_caption->setStyleSheet(style::textColour(style::Colour::Muted));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 6, 12, 6);
    layout->setSpacing(0);
    layout->addWidget(m_value);
    layout->addWidget(m_caption);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void StatTile::setValue(const QString &value, const QString &toolTip) {
    m_value->setText(value);
    setToolTip(toolTip);
}

void StatTile::setAlert(bool on) {
    m_value->setStyleSheet(on ? style::textColour(style::Colour::Error) : QString());
}

QString StatTile::value() const {
    return m_value->text();
}

QString StatTile::caption() const {
    return m_caption->text();
}

void StatTile::setCaption(const QString &caption) {
    m_caption->setText(caption);
}

} // namespace rw

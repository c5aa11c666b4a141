#include "ui/window/navigator.h"

#include "core/workspace/spec.h"
#include "ui/common/style.h"

#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QStringBuilder>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <iterator>
#include <tuple>

namespace rw {

namespace {

// A dataset or stream of the spec that does not resolve against the catalog:
// shown, flagged, with the reason (Spec::broken).
void flagBroken(QTreeWidgetItem *item, const QString &why) {
    if (why.isEmpty())
        return;
    item->setData(0, Qt::UserRole + 10, why);
    item->setText(1, QObject::tr("broken: %1").arg(why));
    item->setForeground(0, QBrush(style::qcolor(style::Colour::Error)));
    item->setForeground(1, QBrush(style::qcolor(style::Colour::Error)));
    const QString tip = item->toolTip(0) %
                        QObject::tr("\n\nCannot be used: %1\nCommands on it are refused.").arg(why);
    item->setToolTip(0, tip);
    item->setToolTip(1, tip);
}

} // namespace

namespace {

constexpr int KindRole = Qt::UserRole + 1;
constexpr int NameRole = Qt::UserRole + 2;

// Small drawn icons: a table for datasets, a log of records for streams.
QIcon drawnIcon(bool stream) {
    QIcon icon;
    for (int size : {16, 24, 32}) {
        QPixmap pm(size, size);
        pm.fill(Qt::transparent);
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        const qreal u = size / 16.0;
        if (!stream) {
            const QColor c = style::qcolor(style::Colour::Accent);
            const QRectF r(1.5 * u, 2.5 * u, 13 * u, 11 * u);
            p.setPen(QPen(c, u));
            p.setBrush(style::qcolor(style::Colour::InfoTint));
            p.drawRoundedRect(r, 1.5 * u, 1.5 * u);
            p.fillRect(QRectF(r.left(), r.top(), r.width(), 3 * u), c);
            p.drawLine(QPointF(r.left(), r.top() + 6.5 * u), QPointF(r.right(), r.top() + 6.5 * u));
            p.drawLine(QPointF(r.left() + 5 * u, r.top() + 3 * u),
                       QPointF(r.left() + 5 * u, r.bottom()));
        } else {
            const QColor c = style::qcolor(style::Colour::Special);
            p.setPen(Qt::NoPen);
            p.setBrush(c);
            for (int i = 0; i < 3; ++i) {
                const qreal y = (3 + 4 * i) * u;
                p.drawRoundedRect(QRectF((1.5 + i) * u, y, (9 - i) * u, 2.6 * u), 1.2 * u, 1.2 * u);
            }
            QPolygonF arrow{QPointF(12 * u, 4 * u), QPointF(15 * u, 8 * u),
                            QPointF(12 * u, 12 * u)};
            p.drawPolygon(arrow);
        }
        p.end();
        icon.addPixmap(pm);
    }
    return icon;
}

} // namespace

Navigator::Navigator(QWidget *parent)
    : QWidget(parent)
    , m_tree(new QTreeWidget(this)) {
    m_tree->setObjectName(QStringLiteral("navigator"));
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Name"), tr("Details")});
    m_tree->setRootIsDecorated(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(false);
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(true);
    connect(m_tree, &QTreeWidget::currentItemChanged, this,
            [this](QTreeWidgetItem *current, QTreeWidgetItem *) { onCurrentChanged(current); });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tree);
}

void Navigator::clear() {
    const QSignalBlocker block(m_tree);
    m_tree->clear();
    m_datasets = m_streams = m_pages = nullptr;
}

void Navigator::setSpec(const Spec &spec, const std::vector<dbt::ModelDrift> &drift) {
    clear();
    const QSignalBlocker block(m_tree);
    QFont groupFont = m_tree->font();
    groupFont.setBold(true);

    const auto makeGroup = [&](const QString &title, std::size_t count) {
        auto *group = new QTreeWidgetItem(m_tree, {title, QString::number(count)});
        group->setFlags(Qt::ItemIsEnabled);
        group->setFont(0, groupFont);
        group->setForeground(1, palette().brush(QPalette::Disabled, QPalette::Text));
        group->setData(0, KindRole, int(Kind::None));
        return group;
    };

    m_datasets = makeGroup(tr("Datasets"), spec.datasets.size());
    const QIcon datasetIcon = drawnIcon(false);
    for (const DatasetSpec &d : spec.datasets) {
        auto *item = new QTreeWidgetItem(
            m_datasets, {d.name, d.target % QStringLiteral(" \u00b7 ") % enumName(d.write) %
                                     (d.dbt ? tr(" \u00b7 dbt") : QString())});
        item->setIcon(0, datasetIcon);
        item->setData(0, KindRole, int(Kind::Dataset));
        item->setData(0, NameRole, d.name);
        QString tip =
            tr("Dataset %1\nsource: %2\ntarget: %3\nwrite: %4%5")
                .arg(d.name, d.source.isEmpty() ? tr("(transform)") : d.source, d.target,
                     enumName(d.write),
                     d.partitioned()
                         ? tr("\npartitioned by %1")
                               .arg(d.partitionGranularity.isEmpty()
                                        ? d.partitionColumn
                                        : d.partitionGranularity % tr(" of ") % d.partitionColumn)
                         : QString());
        if (d.dbt) {
            tip += tr("\nfrom dbt model %1 (checksum %2)")
                       .arg(d.dbt->uniqueId,
                            d.dbt->checksum.isEmpty() ? tr("not recorded") : d.dbt->checksum);
            const auto it = std::find_if(drift.begin(), drift.end(), [&](const dbt::ModelDrift &m) {
                return m.dataset == d.name;
            });
            if (it != drift.end() && it->state != dbt::ModelDrift::State::Current) {
                const bool gone = it->state == dbt::ModelDrift::State::Gone;
                // First, so that a narrow column still shows it.
                item->setText(1, (gone ? tr("model gone \u00b7 ") : tr("model changed \u00b7 ")) %
                                     item->text(1));
                item->setForeground(1, QBrush(style::qcolor(style::Colour::Warning)));
                tip += gone ? tr("\nThe manifest no longer has this model.")
                            : tr("\nThe model changed since its import (the manifest's checksum "
                                 "is %1): import the project again to run its new logic.")
                                  .arg(it->current);
            }
        }
        item->setToolTip(0, tip);
        item->setToolTip(1, tip);
        flagBroken(item, spec.brokenReason(QStringLiteral("dataset"), d.name));
    }

    m_streams = makeGroup(tr("Streams"), spec.streams.size());
    const QIcon streamIcon = drawnIcon(true);
    for (const StreamSpec &s : spec.streams) {
        auto *item = new QTreeWidgetItem(
            m_streams, {s.name, s.source() % QStringLiteral(" \u2192 ") % s.sink});
        item->setIcon(0, streamIcon);
        item->setData(0, KindRole, int(Kind::Stream));
        item->setData(0, NameRole, s.name);
        item->setToolTip(
            0, tr("Stream %1\n%2: %3\nsink: %4").arg(s.name, s.sourceKind(), s.source(), s.sink));
        item->setToolTip(1, item->toolTip(0));
        flagBroken(item, spec.brokenReason(QStringLiteral("stream"), s.name));
    }
    const std::tuple<QString, QString, QString> pages[] = {
        {QStringLiteral("lag"), tr("Lateness"), tr("late data, watermark, finalize")},
        {QStringLiteral("preview"), tr("Preview"), tr("what a re-run would change")},
        {QStringLiteral("runs"), tr("Runs"), tr("live and past runs")},
        {QStringLiteral("audit"), tr("Audit log"), tr("who did what, when")},
        {QStringLiteral("dlq"), tr("Dead-letter queue"), tr("quarantined records: fix, replay")},
    };
    m_pages = makeGroup(tr("Activity"), std::size(pages));
    for (const auto &[name, label, detail] : pages) {
        auto *item = new QTreeWidgetItem(m_pages, {label, detail});
        item->setData(0, KindRole, int(Kind::Page));
        item->setData(0, NameRole, name);
        item->setForeground(1, palette().brush(QPalette::Disabled, QPalette::Text));
    }
    m_tree->expandAll();
}

QTreeWidgetItem *Navigator::find(Kind kind, const QString &name) const {
    QTreeWidgetItem *group = kind == Kind::Dataset  ? m_datasets
                             : kind == Kind::Stream ? m_streams
                             : kind == Kind::Page   ? m_pages
                                                    : nullptr;
    if (!group)
        return nullptr;
    for (int i = 0; i < group->childCount(); ++i)
        if (group->child(i)->data(0, NameRole).toString() == name)
            return group->child(i);
    return nullptr;
}

bool Navigator::select(Kind kind, const QString &name) {
    QTreeWidgetItem *item = find(kind, name);
    if (!item)
        return false;
    if (m_tree->currentItem() == item)
        onCurrentChanged(item); // re-selecting reloads
    else
        m_tree->setCurrentItem(item);
    return true;
}

Navigator::Kind Navigator::currentKind() const {
    const QTreeWidgetItem *item = m_tree->currentItem();
    return item ? Kind(item->data(0, KindRole).toInt()) : Kind::None;
}

QString Navigator::currentName() const {
    const QTreeWidgetItem *item = m_tree->currentItem();
    return item ? item->data(0, NameRole).toString() : QString();
}

void Navigator::onCurrentChanged(QTreeWidgetItem *current) {
    if (!current)
        return;
    const QString name = current->data(0, NameRole).toString();
    switch (Kind(current->data(0, KindRole).toInt())) {
    case Kind::Dataset:
        Q_EMIT datasetSelected(name);
        break;
    case Kind::Stream:
        Q_EMIT streamSelected(name);
        break;
    case Kind::Page:
        Q_EMIT pageSelected(name);
        break;
    case Kind::None:
        break;
    }
}

} // namespace rw

#pragma once

#include "database.h"
#include "page.h"
#include "spec.h"

#include <optional>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace rw {

class StatTile;
class StreamPartitionsModel;

// One stream: the extent of each log partition and what the sink holds.
class StreamPage : public Page {
    Q_OBJECT
public:
    explicit StreamPage(QWidget *parent = nullptr);

    // Shows `stream` and starts loading its log extents in the background.
    void setStream(const Database &db, const StreamSpec &stream);
    QString streamName() const;

    void refresh() override;
    void clear() override;
    QString title() const override;

    QTableView *view() const { return m_view; }
    StreamPartitionsModel *model() const { return m_model; }
    qint64 sinkRows() const { return m_sinkRows; }

private:
    void updateHeader();

    std::optional<Database> m_db;
    std::optional<StreamSpec> m_stream;
    qint64 m_sinkRows = -1; // -1: unknown

    QLabel *m_title;
    QLabel *m_subtitle;
    StatTile *m_partitionsTile;
    StatTile *m_eventsTile;
    StatTile *m_rangeTile;
    StatTile *m_sinkTile;
    QTableView *m_view;
    StreamPartitionsModel *m_model;
    QSortFilterProxyModel *m_proxy;
};

} // namespace rw

#pragma once

#include <QString>
#include <QStringList>
#include <functional>
#include <vector>

namespace rw {

class Page;

// The console's pages by their --page name: the main window registers each
// page once and finds it here to name, show, wire and clear it, instead of
// keeping parallel lists. GUI thread only; the pages are owned by the
// window's stack, not by the registry.
class PageRegistry {
public:
    struct Entry {
        QString name; // the --page name
        Page *page = nullptr;
        // Shows the page when it is asked for by name (navigator, View menu,
        // --page); false when there is nothing to show it with.
        std::function<bool()> show;
        // The View menu's entry, "" for none; the menu lists them by `menuKey`
        // (Ctrl+1, Ctrl+2, ...).
        QString menuLabel = {};
        int menuKey = 0;
        // Cleared when another workspace opens.
        bool clearOnOpen = true;
    };

    // Every --page name, in the order rewind --help lists them.
    static QStringList helpNames();
    // Every --page name, in the registry's (and the navigator's) order.
    static QStringList names();

    // `entry.name` must be one of names(), registered once.
    void add(Entry entry);
    const Entry *find(const QString &name) const;
    // The --page name of `page`; empty for none.
    QString nameOf(const Page *page) const;
    const std::vector<Entry> &entries() const { return m_entries; }
    // The entries with a View menu label, in menu order.
    std::vector<const Entry *> menuEntries() const;

private:
    std::vector<Entry> m_entries;
};

} // namespace rw

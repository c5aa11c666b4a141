#include "ui/window/pageregistry.h"

#include <QtGlobal>
#include <algorithm>

namespace rw {

namespace {

struct Known {
    const char *name;
    int helpRank; // its place in rewind --help
};

// One line per page the console has.
const Known kPages[] = {{"partitions", 0}, {"preview", 1}, {"runs", 2}, {"lag", 3},
                        {"streams", 5},    {"audit", 6},   {"dlq", 4},  {"recover", 7}};

} // namespace

QStringList PageRegistry::names() {
    QStringList out;
    for (const Known &k : kPages)
        out << QString::fromLatin1(k.name);
    return out;
}

QStringList PageRegistry::helpNames() {
    std::vector<Known> byRank(std::begin(kPages), std::end(kPages));
    std::sort(byRank.begin(), byRank.end(),
              [](const Known &a, const Known &b) { return a.helpRank < b.helpRank; });
    QStringList out;
    for (const Known &k : byRank)
        out << QString::fromLatin1(k.name);
    return out;
}

void PageRegistry::add(Entry entry) {
    Q_ASSERT(names().contains(entry.name) && !find(entry.name));
    m_entries.push_back(std::move(entry));
}

const PageRegistry::Entry *PageRegistry::find(const QString &name) const {
    const auto it = std::find_if(m_entries.cbegin(), m_entries.cend(),
                                 [&name](const Entry &e) { return e.name == name; });
    return it == m_entries.cend() ? nullptr : &*it;
}

QString PageRegistry::nameOf(const Page *page) const {
    if (!page)
        return QString();
    const auto it = std::find_if(m_entries.cbegin(), m_entries.cend(),
                                 [page](const Entry &e) { return e.page == page; });
    return it == m_entries.cend() ? QString() : it->name;
}

std::vector<const PageRegistry::Entry *> PageRegistry::menuEntries() const {
    std::vector<const Entry *> out;
    for (const Entry &e : m_entries)
        if (!e.menuLabel.isEmpty())
            out.push_back(&e);
    std::sort(out.begin(), out.end(),
              [](const Entry *a, const Entry *b) { return a->menuKey < b->menuKey; });
    return out;
}

} // namespace rw

#include "gui/sweep_form_widget.h"

#include <QCompleter>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QVBoxLayout>

#include "base/config/config_schema.h"
#include "gui/file_dialog.h"
#include "gui/method_choices.h"

namespace fathom::gui {
namespace {

QStringList schema_keys() {
  QStringList keys;
  for (const auto& k : config_keys()) keys << QString::fromStdString(k);
  return keys;
}

// The values a key may take: its schema choices, or the registered methods for model.norm,
// model.init and model.connection (asked of the CLI). Empty: any value of its type.
QStringList value_choices(const QString& key) {
  QStringList out;
  if (const FieldSpec* f = find_field(key.toStdString()))
    for (const auto& c : f->choices) out << QString::fromStdString(c);
  for (const MethodChoice& m : method_choices().value(key)) out << m.name;
  return out;
}

// "type; doc; one of a | b" for a key's tooltip, or "" for an unknown key. Methods come with
// their one-line description.
QString key_help(const QString& key) {
  const FieldSpec* f = find_field(key.toStdString());
  if (!f) return {};
  static const char* types[] = {"int",  "unsigned int", "number",         "bool",
                                "text", "path",         "pair of numbers"};
  QString help = QStringLiteral("%1 (%2): %3")
                     .arg(key, QString::fromLatin1(types[static_cast<int>(f->type)]),
                          QString::fromStdString(f->doc));
  if (f->range.limited())
    help += QStringLiteral("\nmust be ") + QString::fromStdString(f->range.text());
  const QList<MethodChoice> methods = method_choices().value(key);
  if (!methods.isEmpty()) {
    help += QStringLiteral("\nchoices:");
    for (const MethodChoice& m : methods) help += QStringLiteral("\n  %1: %2").arg(m.name, m.doc);
  } else if (!f->choices.empty()) {
    help += QStringLiteral("\nchoices: ") + value_choices(key).join(QStringLiteral(", "));
  }
  return help;
}

// Completes the item being typed in a comma-separated list ("post, pe" -> "post, peri").
class ListItemCompleter : public QCompleter {
 public:
  ListItemCompleter(const QStringList& words, QLineEdit* edit)
      : QCompleter(words, edit), edit_(edit) {
    setCaseSensitivity(Qt::CaseInsensitive);
  }
  QStringList splitPath(const QString& path) const override {
    return {path.section(QLatin1Char(','), -1).trimmed()};
  }
  QString pathFromIndex(const QModelIndex& index) const override {
    const QString text = edit_->text();
    const int comma = text.lastIndexOf(QLatin1Char(','));
    const QString head = comma < 0 ? QString() : text.left(comma + 1) + QLatin1Char(' ');
    return head + QCompleter::pathFromIndex(index);
  }

 private:
  QLineEdit* edit_;
};

// Value cells complete over the row's key's choices (schema choices or registered methods).
class ValueDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&,
                        const QModelIndex& index) const override {
    auto* edit = new QLineEdit(parent);
    const QStringList choices = value_choices(index.siblingAtColumn(0).data().toString().trimmed());
    if (!choices.isEmpty()) edit->setCompleter(new ListItemCompleter(choices, edit));
    return edit;
  }
};

// Key cells edit with completion over every config key.
class KeyDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&,
                        const QModelIndex&) const override {
    auto* edit = new QLineEdit(parent);
    auto* completer = new QCompleter(schema_keys(), edit);
    completer->setFilterMode(Qt::MatchContains);
    edit->setCompleter(completer);
    return edit;
  }
};

const char* kErrorStyle = "background: #ffd8d8;";

}  // namespace

SweepFormWidget::SweepFormWidget(QWidget* parent) : QWidget(parent) {
  name_ = new QLineEdit;
  name_->setPlaceholderText(QStringLiteral("letters, digits, _ . -"));
  base_ = new QLineEdit;
  base_->setPlaceholderText(QStringLiteral("config path, relative to the sweep file"));
  auto* browse = new QPushButton(QStringLiteral("Browse..."));
  connect(browse, &QPushButton::clicked, this, &SweepFormWidget::browseBase);
  auto* base_row = new QHBoxLayout;
  base_row->addWidget(base_);
  base_row->addWidget(browse);
  seeds_ = new QLineEdit;
  seeds_->setPlaceholderText(QStringLiteral("e.g. 1, 2, 3 (empty: the base's seed)"));
  grid_ = makeTable(QStringLiteral("values (comma-separated)"));
  zip_ = makeTable(QStringLiteral("values, same count in every row"));
  zip_->setToolTip(
      QStringLiteral("keys varied together: the i-th values of every row make one step"));
  set_ = makeTable(QStringLiteral("value"));

  auto* form = new QFormLayout;
  form->addRow(QStringLiteral("&Name"), name_);
  auto* base_label = new QLabel(QStringLiteral("&Base config"));
  base_label->setBuddy(base_);
  form->addRow(base_label, base_row);
  form->addRow(QStringLiteral("Gri&d axes"), grid_);
  form->addRow(QStringLiteral("&Zipped axes"), zip_);
  form->addRow(QStringLiteral("S&eeds"), seeds_);
  form->addRow(QStringLiteral("Fi&xed (set:)"), set_);
  setLayout(form);

  for (auto* edit : {name_, base_, seeds_})
    connect(edit, &QLineEdit::textEdited, this, [this] { emit edited(); });
  filling_ = true;  // each table starts with its empty row to type into
  for (auto* table : {grid_, zip_, set_}) fillTable(table, {});
  filling_ = false;
}

QTableWidget* SweepFormWidget::makeTable(const QString& value_header) {
  auto* table = new QTableWidget(0, 2);
  table->setHorizontalHeaderLabels({QStringLiteral("key"), value_header});
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table->verticalHeader()->hide();
  table->setItemDelegateForColumn(0, new KeyDelegate(table));
  table->setItemDelegateForColumn(1, new ValueDelegate(table));
  table->setMinimumHeight(100);
  connect(table, &QTableWidget::itemChanged, this, [this, table](QTableWidgetItem* item) {
    if (filling_) return;
    if (item->column() == 0) {
      filling_ = true;  // the tooltip is not an edit
      item->setToolTip(key_help(item->text()));
      filling_ = false;
    }
    // A new empty last row is always there to type into.
    const int last = table->rowCount() - 1;
    if (last < 0 || (table->item(last, 0) && !table->item(last, 0)->text().isEmpty())) {
      filling_ = true;
      table->insertRow(table->rowCount());
      filling_ = false;
    }
    emit edited();
  });
  return table;
}

void SweepFormWidget::fillTable(QTableWidget* table, const std::vector<SweepFormEntry>& entries) {
  table->setRowCount(0);
  table->setRowCount(static_cast<int>(entries.size()) + 1);
  for (int r = 0; r < table->rowCount(); ++r) {
    const bool real = r < static_cast<int>(entries.size());
    auto* key = new QTableWidgetItem(real ? QString::fromStdString(entries[r].key) : QString());
    auto* value = new QTableWidgetItem(real ? QString::fromStdString(entries[r].value) : QString());
    key->setToolTip(key_help(key->text()));
    table->setItem(r, 0, key);
    table->setItem(r, 1, value);
  }
}

void SweepFormWidget::setLines(const SweepForm& form) { shown_ = form; }

void SweepFormWidget::setForm(const SweepForm& form) {
  filling_ = true;
  shown_ = form;
  // Leave a field being typed in alone when its text is the same (keeps the cursor).
  if (name_->text() != QString::fromStdString(form.name))
    name_->setText(QString::fromStdString(form.name));
  if (base_->text() != QString::fromStdString(form.base))
    base_->setText(QString::fromStdString(form.base));
  if (seeds_->text() != QString::fromStdString(form.seeds))
    seeds_->setText(QString::fromStdString(form.seeds));
  auto same = [](const std::vector<SweepFormEntry>& a, const std::vector<SweepFormEntry>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i].key != b[i].key || a[i].value != b[i].value) return false;
    return true;
  };
  if (!same(tableEntries(grid_), form.grid)) fillTable(grid_, form.grid);
  if (!same(tableEntries(zip_), form.zip)) fillTable(zip_, form.zip);
  if (!same(tableEntries(set_), form.set)) fillTable(set_, form.set);
  filling_ = false;
}

std::vector<SweepFormEntry> SweepFormWidget::tableEntries(const QTableWidget* table) const {
  std::vector<SweepFormEntry> out;
  for (int r = 0; r < table->rowCount(); ++r) {
    const auto* key = table->item(r, 0);
    const auto* value = table->item(r, 1);
    if (!key || key->text().trimmed().isEmpty()) continue;
    out.push_back({key->text().trimmed().toStdString(),
                   value ? value->text().trimmed().toStdString() : std::string()});
  }
  return out;
}

SweepForm SweepFormWidget::form() const {
  SweepForm f = shown_;  // keeps the extra YAML the form does not edit
  f.name = name_->text().trimmed().toStdString();
  f.base = base_->text().trimmed().toStdString();
  f.seeds = seeds_->text().trimmed().toStdString();
  f.grid = tableEntries(grid_);
  f.zip = tableEntries(zip_);
  f.set = tableEntries(set_);
  return f;
}

void SweepFormWidget::markWidget(QWidget* widget, const QString& message) {
  widget->setStyleSheet(QString::fromLatin1(kErrorStyle));
  widget->setToolTip(message);
  widget->setProperty("sweepError", message);
}

QWidget* SweepFormWidget::markError(int line, bool in_base, const QString& message, bool in_key) {
  if (in_base) {
    markWidget(base_, message);
    return base_;
  }
  if (line <= 0) return nullptr;
  for (auto [field_line, edit] :
       {std::pair{shown_.name_line, name_}, std::pair{shown_.base_line, base_},
        std::pair{shown_.seeds_line, seeds_}}) {
    if (line != field_line) continue;
    markWidget(edit, message);
    return edit;
  }
  auto mark_row = [&](QTableWidget* table, const std::vector<SweepFormEntry>& entries) -> bool {
    for (size_t r = 0; r < entries.size(); ++r) {
      if (line < entries[r].line || line > std::max(entries[r].line, entries[r].end_line)) continue;
      filling_ = true;  // the wrong part only: the value, or the key when it is unknown
      if (auto* item = table->item(static_cast<int>(r), in_key ? 0 : 1)) {
        item->setBackground(QColor(0xff, 0xd8, 0xd8));
        item->setToolTip(message);
      }
      filling_ = false;
      table->setProperty("sweepError", message);
      table->setProperty("sweepErrorRow", static_cast<int>(r));
      return true;
    }
    return false;
  };
  if (mark_row(grid_, shown_.grid)) return grid_;
  if (mark_row(zip_, shown_.zip)) return zip_;
  if (mark_row(set_, shown_.set)) return set_;
  return nullptr;
}

void SweepFormWidget::clearErrors() {
  for (auto* edit : {name_, base_, seeds_}) {
    edit->setStyleSheet({});
    edit->setToolTip({});
    edit->setProperty("sweepError", {});
  }
  filling_ = true;
  for (auto* table : {grid_, zip_, set_}) {
    table->setProperty("sweepError", {});
    table->setProperty("sweepErrorRow", {});
    for (int r = 0; r < table->rowCount(); ++r) {
      for (int c = 0; c < 2; ++c) {
        if (auto* item = table->item(r, c)) {
          item->setBackground(QBrush());
          item->setToolTip(c == 0 ? key_help(item->text()) : QString());
        }
      }
    }
  }
  filling_ = false;
}

void SweepFormWidget::browseBase() {
  const QString path = choose_file_to_open(this, QStringLiteral("Base config"), {},
                                           QStringLiteral("YAML (*.yaml *.yml)"));
  if (path.isEmpty()) return;
  base_->setText(path);
  emit edited();
}

}  // namespace fathom::gui

#include "moc_sweep_form_widget.cpp"  // moc output for sweep_form_widget.h: compiled in this unit

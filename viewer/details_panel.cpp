#include "details_panel.h"

#include <QHeaderView>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "racetrack/race/fix.h"
#include "racetrack/race/report.h"
#include "racetrack/traces/describe.h"
#include "racetrack/traces/extents.h"
#include "racetrack/traces/timeline.h"
#include "timeline_layout.h"

namespace racetrack::viewer {
namespace {

constexpr int kSeqRole = Qt::UserRole + 1;        // rows naming another op
constexpr int kHighlightRole = Qt::UserRole + 2;  // rows that show a hazard's overlap
constexpr int kMemoryRole = Qt::UserRole + 3;     // rows with a byte range: index in ranges_

QString q(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}
QString q(const std::string& text) {
  return QString::fromStdString(text);
}
QString hexq(uint64_t v) {
  return q(hex(v));
}

QString range_text(uint64_t lo, uint64_t hi) {
  return QStringLiteral("[%1, %2)  %3").arg(hexq(lo), hexq(hi), q(format_bytes(hi - lo)));
}

// The region an address falls in at the time of op `seq`: one whose
// recorded lifetime covers the op, else the latest defined.
const RegionRecord* region_at(const TraceModel& model, race::SpaceKey space, uint64_t address, uint64_t seq) {
  const RegionRecord* best = nullptr;
  for (const RegionRecord& r : model.regions()) {
    if (race::space_key(r.space, r.device) != space || address < r.base || address - r.base >= r.size)
      continue;
    const bool lives = (!r.alloc_seq || r.alloc_seq <= seq) && (!r.free_seq || seq <= r.free_seq);
    if (lives || !best) best = &r;
  }
  return best;
}

}  // namespace

DetailsPanel::DetailsPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  tree_ = new QTreeWidget(this);
  tree_->setColumnCount(2);
  tree_->setHeaderLabels({tr("Field"), tr("Value")});
  tree_->setColumnWidth(0, 175);
  tree_->setWordWrap(true);
  tree_->setTextElideMode(Qt::ElideRight);
  tree_->header()->setStretchLastSection(true);
  fix_box_ = new QPlainTextEdit(this);
  fix_box_->setObjectName(QStringLiteral("fixBox"));
  fix_box_->setReadOnly(true);
  fix_box_->setLineWrapMode(QPlainTextEdit::WidgetWidth);
  fix_box_->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  fix_box_->hide();
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(tree_);
  split->addWidget(fix_box_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  layout->addWidget(split);
  connect(tree_, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
    if (const QVariant seq = item->data(0, kSeqRole); seq.isValid()) emit opActivated(seq.toULongLong());
    if (const QVariant range = item->data(0, kMemoryRole); range.isValid()) {
      const QVariantList v = range.toList();
      emit memoryRequested({static_cast<race::SpaceKey>(v[0].toUInt()), v[1].toULongLong(),
                            v[2].toULongLong(), v[3].toString()});
    }
  });
}

void DetailsPanel::setModel(std::shared_ptr<const TraceModel> model, OpFetcher* fetcher) {
  model_ = std::move(model);
  fetcher_ = fetcher;
  clear();
}

void DetailsPanel::clear() {
  tree_->clear();
  fix_box_->hide();
  auto* hint =
      new QTreeWidgetItem(tree_, {tr("Click an op on the timeline, or pick a hazard (list, N / P).")});
  hint->setFirstColumnSpanned(true);
  hint->setForeground(0, QColor(0x5f, 0x6b, 0x76));
}

QTreeWidgetItem* DetailsPanel::section(const QString& title) {
  auto* item = new QTreeWidgetItem(tree_, {title});
  QFont bold = item->font(0);
  bold.setBold(true);
  item->setFont(0, bold);
  item->setFirstColumnSpanned(true);
  item->setExpanded(true);
  return item;
}

QTreeWidgetItem* DetailsPanel::row(QTreeWidgetItem* parent, const QString& field, const QString& value) {
  auto* item = new QTreeWidgetItem(parent, {field, value});
  item->setToolTip(1, value);
  return item;
}

QString DetailsPanel::field(const QString& section_title, const QString& name) const {
  for (int i = 0; i < tree_->topLevelItemCount(); ++i) {
    const QTreeWidgetItem* s = tree_->topLevelItem(i);
    if (!s->text(0).startsWith(section_title)) continue;
    // Depth first, in the order the rows show.
    std::vector<const QTreeWidgetItem*> todo;
    for (int c = s->childCount() - 1; c >= 0; --c) todo.push_back(s->child(c));
    while (!todo.empty()) {
      const QTreeWidgetItem* item = todo.back();
      todo.pop_back();
      if (item->text(0) == name) return item->text(1);
      for (int c = item->childCount() - 1; c >= 0; --c) todo.push_back(item->child(c));
    }
    return {};
  }
  return {};
}

int DetailsPanel::highlightedRows() const {
  int count = 0;
  std::vector<const QTreeWidgetItem*> todo;
  for (int i = 0; i < tree_->topLevelItemCount(); ++i) todo.push_back(tree_->topLevelItem(i));
  while (!todo.empty()) {
    const QTreeWidgetItem* item = todo.back();
    todo.pop_back();
    if (item->data(0, kHighlightRole).toBool()) ++count;
    for (int c = 0; c < item->childCount(); ++c) todo.push_back(item->child(c));
  }
  return count;
}

QString DetailsPanel::opLine(const v1::Op& op) const {
  const TraceTables& t = model_->tables();
  const std::string lane =
      on_stream_lane(op) ? stream_lane_name(t, op.stream()) : thread_lane_name(t, op.thread());
  return QStringLiteral("#%1 %2  on %3").arg(op.seq()).arg(q(op_title(op, t)), q(lane));
}

void DetailsPanel::showOp(OpRef ref) {
  tree_->clear();
  fix_box_->hide();
  if (!model_) return;
  const Lane& lane = model_->lanes()[ref.lane];
  if (lane.type == LaneType::kNvtx) {
    QTreeWidgetItem* s = section(tr("NVTX range %1").arg(model_->label(ref)));
    row(s, tr("name"), model_->label(ref));
    row(s, tr("lane"), lane.label);
    row(s, tr("level"), QString::number(lane.depth + 1));
    row(s, tr("span"),
        QStringLiteral("%1 \u2013 %2 (%3)")
            .arg(format_instant(static_cast<double>(model_->start(ref))),
                 format_instant(static_cast<double>(model_->end(ref))),
                 format_duration(static_cast<double>(model_->end(ref) - model_->start(ref)))));
    row(s, tr("first op"), QStringLiteral("#%1").arg(model_->seq(ref)))
        ->setData(0, kSeqRole, QVariant::fromValue<qulonglong>(model_->seq(ref)));
    return;
  }
  addOp(tr("Op"), model_->seq(ref), std::nullopt, nullptr);
}

void DetailsPanel::showHazard(const HazardModel& hazards, uint32_t instance) {
  tree_->clear();
  fix_box_->hide();
  if (!model_ || instance >= hazards.instances().size()) return;
  const HazardInstance& inst = hazards.instances()[instance];
  const race::Hazard& h = inst.hazard;
  const race::HazardGroup& group = hazards.result().groups[inst.group];
  const TraceTables& t = model_->tables();
  QTreeWidgetItem* s = section(tr("Hazard #%1 \u2192 #%2").arg(h.first.seq).arg(h.second.seq));
  row(s, tr("kind"), q(race::kind_name(h.kind)));
  row(s, tr("class"), q(race::class_name(h.cls)));
  row(s, tr("confidence"), q(race::confidence_name(h.confidence)));
  row(s, tr("streams"), hazards.streams(h));
  const QString space =
      h.space == race::kHostSpace ? tr("host memory") : tr("device %1 memory").arg(h.space - 1);
  QTreeWidgetItem* overlap = row(s, tr("overlap"), space + QStringLiteral("  ") + range_text(h.lo, h.hi));
  overlap->setData(0, kHighlightRole, true);
  overlap->setBackground(1, QColor(0xff, 0xd6, 0xdc));
  const QString region = h.second.region_label ? q(t.string(h.second.region_label)) : tr("unnamed memory");
  overlap->setData(0, kMemoryRole,
                   QVariantList{h.space, QVariant::fromValue<qulonglong>(h.lo),
                                QVariant::fromValue<qulonglong>(h.hi), tr("overlap in %1").arg(region)});
  overlap->setToolTip(0, tr("Double-click: show in the memory view"));
  row(s, tr("region"), region);
  row(s, tr("group"),
      tr("[%1] %2 (%3 hazard(s))").arg(race::hazard_number(h)).arg(q(group.signature)).arg(group.count));
  if (!group.explanation.empty())
    row(s, tr("explanation"),
        q(group.explanation) +
            (group.first.key() == h.key() ? QString() : tr("  (for the group's first occurrence)")));
  // The fix of this very instance; the group's verification covers its first.
  const race::Fix fix = group.first.key() == h.key() ? group.fix : race::suggest_fix(h, t);
  row(s, tr("fix"), fix.available ? q(fix.text) : tr("none: no CUDA synchronisation orders this pair"));
  if (!fix.pytorch.empty()) row(s, tr("PyTorch"), q(fix.pytorch));
  if (group.first.key() == h.key() && hazards.result().fixes_checked)
    row(s, tr("verified"),
        fix.verified ? tr("yes: re-checked with the fix applied, the hazard is gone") : tr("no"));
  if (!group.settle.empty()) row(s, tr("to settle"), q(group.settle));
  showFixText(group, fix, group.first.key() == h.key() && hazards.result().fixes_checked);
  const Overlap range{h.space, h.lo, h.hi};
  addOp(tr("First op"), h.first.seq, range, &h.first);
  addOp(tr("Second op"), h.second.seq, range, &h.second);
}

void DetailsPanel::showFixText(const race::HazardGroup& group, const race::Fix& fix, bool checked) {
  QStringList parts;
  if (!group.explanation.empty()) parts << tr("Why: %1").arg(q(group.explanation));
  parts << tr("Fix: %1").arg(fix.available ? q(fix.text)
                                           : tr("none: no CUDA synchronisation orders this pair"));
  if (!fix.pytorch.empty()) parts << tr("PyTorch: %1").arg(q(fix.pytorch));
  if (checked && fix.available)
    parts << (fix.verified ? tr("Verified: re-checked with the fix applied, the hazard is gone")
                           : tr("Not verified: the re-check with the fix applied still finds it"));
  if (!group.settle.empty()) parts << tr("To settle: %1").arg(q(group.settle));
  fix_box_->setPlainText(parts.join(QStringLiteral("\n\n")));
  fix_box_->show();
}

void DetailsPanel::showChain(uint64_t first, uint64_t second, const std::vector<hb::HbEdge>& chain,
                             const QString& error) {
  QTreeWidgetItem* s = section(tr("Happens-before #%1 \u2192 #%2").arg(first).arg(second));
  tree_->insertTopLevelItem(0, tree_->takeTopLevelItem(tree_->indexOfTopLevelItem(s)));
  s->setExpanded(true);
  if (!error.isEmpty()) {
    row(s, tr("error"), error);
    return;
  }
  if (chain.empty()) {
    row(s, tr("ordered"), tr("no: no chain of stream order, events or host synchronisation connects them"));
    return;
  }
  row(s, tr("ordered"), tr("yes, through %1 edge(s)").arg(chain.size()));
  for (const hb::HbEdge& e : chain)
    row(s, q(hb::edge_kind_name(e.kind)), QStringLiteral("#%1 \u2192 #%2").arg(e.from_seq).arg(e.to_seq))
        ->setData(0, kSeqRole, QVariant::fromValue<qulonglong>(e.to_seq));
}

void DetailsPanel::addOp(const QString& title, uint64_t seq, const std::optional<Overlap>& overlap,
                         const race::HazardSide* side) {
  auto fetched = fetcher_ ? fetcher_->op(seq) : Result<v1::Op>(make_error("no file"));
  if (!fetched) {
    row(section(QStringLiteral("%1 #%2").arg(title).arg(seq)), tr("error"), q(fetched.error().describe()));
    return;
  }
  const v1::Op& op = *fetched;
  const TraceTables& t = model_->tables();
  QTreeWidgetItem* s = section(QStringLiteral("%1 #%2  %3").arg(title).arg(seq).arg(q(op_title(op, t))));
  row(s, tr("seq"), QString::number(op.seq()));
  row(s, tr("kind"), category_name(category_of(op)));
  row(s, tr("name"), q(op_title(op, t)));
  if (op.stream()) row(s, tr("stream"), q(stream_lane_name(t, op.stream())));
  row(s, tr("thread"), q(thread_lane_name(t, op.thread())));
  auto span = [](int64_t a, int64_t b) {
    return QStringLiteral("%1 \u2013 %2  (%3)")
        .arg(format_instant(static_cast<double>(a)), format_instant(static_cast<double>(b)),
             format_duration(static_cast<double>(b - a)));
  };
  row(s, tr("host call"), span(op.host_start(), op.host_end()));
  if (op.has_device_start() && op.has_device_end())
    row(s, tr("device"), span(op.device_start(), op.device_end()));
  if (auto ref = model_->find(seq)) row(s, tr("timeline"), span(model_->start(*ref), model_->end(*ref)));
  row(s, tr("NVTX"), op.nvtx() ? q(t.string(op.nvtx())) : tr("(none)"));
  if (op.stack()) row(s, tr("host stack"), q(t.string(op.stack())));
  if (op.correlation_id()) row(s, tr("correlation id"), QString::number(op.correlation_id()));
  addAccesses(s, op, overlap, side);
  addArguments(s, op);
  addOrdering(s, seq);
}

void DetailsPanel::addAccesses(QTreeWidgetItem* s, const v1::Op& op, const std::optional<Overlap>& overlap,
                               const race::HazardSide* side) {
  const TraceTables& t = model_->tables();
  QTreeWidgetItem* accesses = row(s, tr("Accesses"), QString());
  accesses->setExpanded(true);
  auto add = [&](const QString& field, race::SpaceKey space, uint64_t lo, uint64_t size,
                 const QString& region_text, const QString& extra) {
    const uint64_t hi = lo + size;
    QTreeWidgetItem* item =
        row(accesses, field, range_text(lo, hi) + QStringLiteral("  ") + region_text + extra);
    item->setData(0, kMemoryRole,
                  QVariantList{space, QVariant::fromValue<qulonglong>(lo),
                               QVariant::fromValue<qulonglong>(hi), region_text});
    item->setToolTip(0, tr("Double-click: show in the memory view"));
    if (overlap && space == overlap->space && lo < overlap->hi && overlap->lo < hi) {
      item->setData(0, kHighlightRole, true);
      item->setBackground(1, QColor(0xff, 0xd6, 0xdc));
      row(item, tr("overlap"), range_text(std::max(lo, overlap->lo), std::min(hi, overlap->hi)))
          ->setBackground(1, QColor(0xff, 0xd6, 0xdc));
      item->setExpanded(true);
    }
  };
  auto region_name = [&](const RegionRecord* r) {
    return r ? QStringLiteral("\"%1\"").arg(q(model_->region_label(r->id))) : tr("(no known region)");
  };
  auto listed = [&](const google::protobuf::RepeatedPtrField<v1::Access>& list,
                    race::SpaceKey default_space) {
    int n = 0;
    for (const v1::Access& a : list) {
      const RegionRecord* r = model_->region(a.region());
      const uint64_t lo = r ? r->base + a.offset() : a.address();
      const race::SpaceKey space = r ? race::space_key(r->space, r->device) : default_space;
      if (!r) r = region_at(*model_, space, lo, op.seq());
      add(tr("%1 access %2").arg(q(mode_name(a.mode()))).arg(++n), space, lo, a.size(), region_name(r),
          QStringLiteral("  %1%2").arg(q(precision_name(a.precision())),
                                       a.arg_index() ? tr(", argument %1").arg(a.arg_index()) : QString()));
    }
  };
  // A copy's or memset's side: its range, or for a pitched shape its hull
  // marked strided, with the rows (extents.h) listed under it.
  auto side_extents = [&](const QString& what, race::SpaceKey space, const SideExtents& e,
                          const QString& extra) {
    const ByteRange hull = e.hull();
    const QString strided =
        e.strided() ? tr(", strided: %1 runs of %2").arg(e.count()).arg(q(format_bytes(e.run_bytes())))
                    : QString();
    add(what, space, hull.lo, hull.size(), region_name(region_at(*model_, space, hull.lo, op.seq())),
        extra + strided);
    if (!e.strided()) return;
    QTreeWidgetItem* rows = accesses->child(accesses->childCount() - 1);
    constexpr uint64_t kRowsShown = 16;
    for (uint64_t i = 0; i < std::min(e.count(), kRowsShown); ++i) {
      const ByteRange run = e.run(i);
      row(rows, tr("run %1").arg(i), range_text(run.lo, run.hi));
    }
    if (e.count() > kRowsShown) row(rows, tr("..."), tr("%1 more runs").arg(e.count() - kRowsShown));
  };
  const v1::Stream* stream = t.stream(op.stream());
  const race::SpaceKey device_space = race::device_space(stream ? stream->device() : 0);
  switch (op.what_case()) {
    case v1::Op::kMemcpy: {
      const v1::Memcpy& c = op.memcpy();
      const race::SpaceKey src = race::space_key(c.src_space(), c.src_device());
      const race::SpaceKey dst = race::space_key(c.dst_space(), c.dst_device());
      side_extents(tr("R source"), src, src_extents(c), QStringLiteral("  ") + q(space_name(c.src_space())));
      side_extents(tr("W destination"), dst, dst_extents(c),
                   QStringLiteral("  ") + q(space_name(c.dst_space())));
      break;
    }
    case v1::Op::kMemset: {
      const race::SpaceKey space = race::space_key(op.memset().space(), stream ? stream->device() : 0);
      side_extents(tr("W destination"), space, memset_extents(op.memset()), QString());
      break;
    }
    case v1::Op::kKernel: listed(op.kernel().accesses(), device_space); break;
    case v1::Op::kHostFunc: listed(op.host_func().accesses(), race::kHostSpace); break;
    case v1::Op::kHostAccess: listed(op.host_access().accesses(), race::kHostSpace); break;
    default: break;
  }
  if (side) {
    // The access as the checker resolved it (kernels without recorded
    // accesses resolve their argument words against live regions).
    const race::ResolvedAccess& a = side->access;
    const QString mode = a.reads && a.writes ? tr("reads+writes") : a.writes ? tr("writes") : tr("reads");
    add(tr("racing access"), a.space, a.lo, a.hi - a.lo,
        side->region_label ? QStringLiteral("\"%1\"").arg(q(t.string(side->region_label))) : tr("(unnamed)"),
        QStringLiteral("  %1%2%3, %4")
            .arg(mode, a.mode_known ? QString() : tr(" (mode unknown)"),
                 a.mode_source == race::ModeSource::kUnknown
                     ? QString()
                     : QStringLiteral(" ") + q(race::mode_source_text(a)),
                 q(precision_name(a.precision))));
    if (a.indirect)
      row(accesses, tr("unseen accesses"),
          tr("the kernel also reaches memory through pointers no argument word gives: not checked"));
  }
  if (accesses->childCount() == 0) accesses->setText(1, tr("(none)"));
}

void DetailsPanel::addArguments(QTreeWidgetItem* s, const v1::Op& op) {
  const TraceTables& t = model_->tables();
  QTreeWidgetItem* args = row(s, tr("Arguments"), QString());
  args->setExpanded(true);
  auto dims = [](const google::protobuf::RepeatedField<uint32_t>& d) {
    QStringList parts;
    for (uint32_t v : d) parts << QString::number(v);
    return parts.join(QLatin1Char('x'));
  };
  auto yes = [&](bool b) { return b ? tr("yes") : tr("no"); };
  switch (op.what_case()) {
    case v1::Op::kKernel: {
      const v1::Kernel& k = op.kernel();
      row(args, tr("grid"), dims(k.grid()));
      row(args, tr("block"), dims(k.block()));
      for (int i = 0; i < k.arg_words_size(); ++i) row(args, tr("word %1").arg(i + 1), hexq(k.arg_words(i)));
      break;
    }
    case v1::Op::kMemcpy: {
      const v1::Memcpy& c = op.memcpy();
      row(args, tr("bytes"), q(format_bytes(c.bytes())) + QStringLiteral(" (%1)").arg(c.bytes()));
      row(args, tr("direction"), q(direction_name(effective_direction(c))));
      row(args, tr("src"), hexq(c.src()) + QStringLiteral(" ") + q(space_name(c.src_space())));
      row(args, tr("dst"), hexq(c.dst()) + QStringLiteral(" ") + q(space_name(c.dst_space())));
      row(args, tr("async"), yes(c.async()));
      if (c.has_pitched()) row(args, tr("shape"), q(describe_shape(c.pitched(), true)));
      if (c.symbol()) row(args, tr("symbol"), q(t.string(c.symbol())));
      break;
    }
    case v1::Op::kMemset:
      row(args, tr("dst"), hexq(op.memset().dst()));
      row(args, tr("bytes"), q(format_bytes(op.memset().bytes())));
      row(args, tr("value"), QString::number(op.memset().value()));
      row(args, tr("async"), yes(op.memset().async()));
      if (op.memset().has_pitched()) row(args, tr("shape"), q(describe_shape(op.memset().pitched(), false)));
      break;
    case v1::Op::kRecord:
      row(args, tr("event"), q(t.event_label(op.record().event())));
      if (op.record().sync_id()) row(args, tr("sync id"), QString::number(op.record().sync_id()));
      break;
    case v1::Op::kWait:
      row(args, tr("event"), q(t.event_label(op.wait().event())));
      if (op.wait().sync_id()) row(args, tr("sync id"), QString::number(op.wait().sync_id()));
      break;
    case v1::Op::kSync:
      row(args, tr("sync"),
          op.sync().kind() == v1::SYNC_EVENT    ? tr("event %1").arg(q(t.event_label(op.sync().event())))
          : op.sync().kind() == v1::SYNC_DEVICE ? tr("device %1").arg(op.sync().device())
                                                : tr("stream"));
      break;
    case v1::Op::kQuery: row(args, tr("ready"), yes(op.query().ready())); break;
    case v1::Op::kAlloc:
    case v1::Op::kFree: {
      const bool alloc = op.has_alloc();
      const uint32_t id = alloc ? op.alloc().region() : op.free().region();
      row(args, tr("region"), q(model_->region_label(id)));
      if (const RegionRecord* r = model_->region(id)) {
        row(args, tr("range"),
            range_text(r->base, r->base + r->size) + QStringLiteral("  ") + q(space_name(r->space)));
        row(args, tr("origin"), q(origin_name(r->origin)));
      }
      row(args, tr("stream ordered"), yes(alloc ? op.alloc().stream_ordered() : op.free().stream_ordered()));
      row(args, tr("device sync"), yes(alloc ? op.alloc().device_sync() : op.free().device_sync()));
      break;
    }
    case v1::Op::kGraph: row(args, tr("nodes"), QString::number(op.graph().nodes_size())); break;
    case v1::Op::kAnnotation:
      row(args, tr("text"), q(t.string(op.annotation().text())));
      if (op.annotation().ordered_after_seq())
        row(args, tr("ordered after"), QStringLiteral("#%1").arg(op.annotation().ordered_after_seq()));
      break;
    default: break;
  }
  if (args->childCount() == 0) args->setText(1, tr("(none)"));
}

void DetailsPanel::addOrdering(QTreeWidgetItem* s, uint64_t seq) {
  auto neighbours = fetcher_->neighbours(seq);
  if (!neighbours) {
    row(s, tr("Ordering"), q(neighbours.error().describe()));
    return;
  }
  const QString window = tr("within #%1\u2013#%2").arg(neighbours->window_first).arg(neighbours->window_last);
  auto add = [&](const QString& title, const std::vector<OrderNeighbour>& list) {
    QTreeWidgetItem* group = row(s, title, list.empty() ? tr("(none %1)").arg(window) : window);
    group->setExpanded(true);
    for (const OrderNeighbour& n : list)
      row(group, q(hb::edge_kind_name(n.kind)), opLine(n.op))
          ->setData(0, kSeqRole, QVariant::fromValue<qulonglong>(n.op.seq()));
  };
  add(tr("Ordered after"), neighbours->after);
  add(tr("Ordered before"), neighbours->before);
}

}  // namespace racetrack::viewer

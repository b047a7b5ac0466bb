#!/usr/bin/perl
# jcost.pl -- an independent check of `clustermap eval`: the cost J of a
# mapping on a VieM/KaHIP hierarchy, computed with nothing but arithmetic on
# slot numbers (no tree, no library code).
#
#   jcost.pl GRAPH MAPPING HIERARCHY DISTANCES
#
# GRAPH is a METIS graph (.graph/.metis: edge weights = bytes, 1 without
# weights) or a Matrix Market file (value = bytes).  MAPPING has one 0-based
# slot per line, line i for rank i.  HIERARCHY a1:...:ak and DISTANCES
# d1:...:dk as for `clustermap --hierarchy --distances`.
#
# Prints what `clustermap eval` prints: J, the bytes per level (root level
# first, named as clustermap.h documents for cm_tree_from_hierarchy) and the
# most bytes one node sends to other nodes.
#
# Two slots p and q meet at the smallest level i with
#   floor(p / (a1*...*ai)) == floor(q / (a1*...*ai))
# and that traffic costs d_i per byte; p == q costs nothing ("core").
use strict;
use warnings;

die "usage: $0 GRAPH MAPPING HIERARCHY DISTANCES\n" unless @ARGV == 4;
my ($graph, $mapping, $hier, $dist) = @ARGV;

my @a = split /:/, $hier;
my @d = split /:/, $dist;
die "hierarchy and distances differ in length\n" unless @a == @d;
my $k = @a;
my @group = (1);                       # $group[i] = a1*...*ai slots
push @group, $group[-1] * $_ for @a;
my $nslots = $group[-1];

# Level names, innermost group first (index 1..k), slots are "core".
my @name = (undef);
for my $i (1 .. $k) {
    push @name, $k == 1 ? 'node'
              : $i == 1 ? 'socket' : $i == 2 ? 'node' : $i == 3 ? 'switch'
              : "group$i";
}
my $node_size = $k >= 2 ? $group[2] : $group[1];

# Edges as [src, dst, bytes], 0-based, directed as stored.
my @edges;
my $n;
open my $g, '<', $graph or die "$graph: $!\n";
my $first = <$g>;
if ($first =~ /^%%MatrixMarket\s+matrix\s+coordinate\s+(\w+)\s+(\w+)/i) {
    my $symmetric = lc($2) eq 'symmetric';
    while (<$g>) {
        next if /^%/ || /^\s*$/;
        my ($r, $c) = split;
        $n = $r > $c ? $r : $c;
        last;
    }
    while (<$g>) {
        next if /^%/ || /^\s*$/;
        my ($i, $j, $v) = split;
        push @edges, [$i - 1, $j - 1, $v];
        push @edges, [$j - 1, $i - 1, $v] if $symmetric && $i != $j;
    }
} else {
    # METIS: "%" comments anywhere; after the header, line v lists vertex v.
    my @lines = grep { !/^%/ } ($first, <$g>);
    chomp @lines;
    my ($nv, $ne, $fmt, $ncon) = split ' ', shift @lines;
    $fmt = defined $fmt ? sprintf('%03d', $fmt) : '000';
    $ncon //= 1;
    my ($vsize, $vwgt, $ewgt) = split //, $fmt;
    $n = $nv;
    for my $v (0 .. $nv - 1) {
        my @f = split ' ', ($lines[$v] // '');
        splice @f, 0, ($vsize ? 1 : 0) + ($vwgt ? $ncon : 0);
        while (@f) {
            my $u = shift @f;
            my $w = $ewgt ? shift @f : 1;
            push @edges, [$v, $u - 1, $w];
        }
    }
}
close $g;

open my $m, '<', $mapping or die "$mapping: $!\n";
my @map = map { /(\d+)/ ? $1 : die "$mapping: bad line '$_'\n" } grep { /\S/ } <$m>;
close $m;
die "$mapping: ", scalar @map, " lines for $n ranks\n" unless @map == $n;
for (@map) { die "$mapping: slot $_ >= $nslots\n" if $_ >= $nslots }

my $J = 0;
my @level = (0) x ($k + 1);            # by group index i; 0 = same slot
my %out;                               # bytes a node sends off-node
my @recv = (0) x $n;                   # cost each rank receives
my %node_in;                           # cost of bytes a node takes in
for my $e (@edges) {
    my ($i, $j, $bytes) = @$e;
    my ($p, $q) = ($map[$i], $map[$j]);
    my $lvl = 0;
    if ($p != $q) {
        $lvl = 1;
        $lvl++ while int($p / $group[$lvl]) != int($q / $group[$lvl]);
        $J += $bytes * $d[$lvl - 1];
        if (int($p / $node_size) != int($q / $node_size)) {
            $node_in{int($q / $node_size)} += $bytes * $d[$lvl - 1];
        } else {
            $recv[$j] += $bytes * $d[$lvl - 1];
        }
    }
    $level[$lvl] += $bytes;
    my ($np, $nq) = (int($p / $node_size), int($q / $node_size));
    $out{$np} += $bytes if $np != $nq;
}
my $max_out = 0;
for (values %out) { $max_out = $_ if $_ > $max_out }

sub num {   # clustermap's format: integer digits when exact, else %.17g
    my ($x) = @_;
    return ($x == int($x) && abs($x) < 2**53) ? sprintf('%.0f', $x)
                                              : sprintf('%.17g', $x);
}

print 'J=', num($J), "\n";
for (my $i = $k; $i >= 1; $i--) {
    print "level.$name[$i]=", num($level[$i]), "\n";
}
print 'level.core=', num($level[0]), "\n";
print 'max_node_out=', num($max_out), "\n";
my $tmax = 0;
for my $r (0 .. $n - 1) {
    my $t = $recv[$r] + ($node_in{int($map[$r] / $node_size)} // 0);
    $tmax = $t if $t > $tmax;
}
print 'T_max=', num($tmax), "\n";

#!/usr/bin/perl
# mkbomb.pl FILE JOB NTASKS ENTRIES: a binary profile (docs/profile-format.md,
# "Binary form") whose deflated body is ENTRIES minimal p2p entries, 3 bytes
# each, rows of NTASKS: a deflate bomb for the readers' memory bound (200 MB
# of body in 0.2 MB of file).  Its checksum is 0: a reader that decodes it
# whole refuses it only at the end.
use strict;
use warnings;
use Compress::Zlib;

my ($out, $job, $ntasks, $entries) = @ARGV;
sub varint {
    my ($x) = @_;
    my $b = '';
    while (1) {
        my $c = $x & 0x7f;
        $x >>= 7;
        if ($x) { $b .= chr($c | 0x80) } else { return $b . chr($c) }
    }
}
sub str { return varint(length $_[0]) . $_[0] }

my ($d, $st) = deflateInit(-Level => 9);
die "deflateInit: $st\n" unless $d;
my ($z, $total) = ('', 0);
sub add {
    my ($bytes) = @_;
    my ($o, $s) = $d->deflate($bytes);
    die "deflate: $s\n" if $s != Z_OK;
    $z .= $o;
    $total += length $bytes;
}
add(varint(0) . varint($ntasks) . varint(1) . varint(1000) . varint(1000) . varint(0) .
    str('root') . str($job) . varint(0) . varint($entries));
my $chunk = "\x00\x00\x02" x 65536;
my ($left, $first) = ($entries, 1);
while ($left > 0) {
    my $n = $left < $ntasks ? $left : $ntasks;
    add($first ? "\x00\x00\x02" : "\x01\x00\x02");
    $first = 0;
    for (my $k = $n - 1; $k > 0;) {
        my $m = $k < 65536 ? $k : 65536;
        add($m == 65536 ? $chunk : "\x00\x00\x02" x $m);
        $k -= $m;
    }
    $left -= $n;
}
add(varint(0));
my ($o, $s) = $d->flush();
die "flush: $s\n" if $s != Z_OK;
$z .= $o;
open(my $fh, '>:raw', $out) or die "$out: $!\n";
print $fh "\x89CMPROF\n", pack('VVVVVV', 1, 1, $total & 0xffffffff, $total >> 32, 0, 0), $z;
close($fh) or die "$out: $!\n";

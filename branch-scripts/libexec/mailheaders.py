"""Headers of the messages b4 writes, read and rewritten as text: folded
lines kept as they are, address lists folded as b4 folds them.  Shared by
own-thread and thread-headers."""
import email.utils


def split_headers(text):
    """[[name, unfolded value, raw lines], ...] and the body."""
    head, _, body = text.partition('\n\n')
    fields = []
    for line in head.split('\n'):
        if line[:1] in (' ', '\t') and fields:
            fields[-1][1] += line
            fields[-1][2] += '\n' + line
        else:
            name, _, value = line.partition(':')
            fields.append([name, value, line])
    return fields, body


def fold(name, addrs):
    """An address header, at most 76 columns a line where it can be."""
    out, line = [], name + ':'
    for i, addr in enumerate(addrs):
        word = ' ' + addr + (',' if i < len(addrs) - 1 else '')
        if len(line) + len(word) > 76 and line != name + ':':
            out.append(line + ' ')
            line = ''
        line += word
    out.append(line)
    return '\n'.join(out)


def addresses(fields, name):
    """The (display name, address) pairs of header `name`."""
    return email.utils.getaddresses([v for n, v, _ in fields if n.lower() == name.lower()])
